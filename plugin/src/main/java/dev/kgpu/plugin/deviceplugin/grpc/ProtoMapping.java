package dev.kgpu.plugin.deviceplugin.grpc;

import dev.kgpu.kubelet.deviceplugin.v1beta1.CDIDevice;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Device;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DeviceSpec;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Mount;
import dev.kgpu.kubelet.deviceplugin.v1beta1.NUMANode;
import dev.kgpu.kubelet.deviceplugin.v1beta1.TopologyInfo;
import dev.kgpu.plugin.deviceplugin.allocation.ContainerAllocation;
import dev.kgpu.plugin.devices.DeviceStatus;

import java.util.List;

/** Domain values to the kubelet's v1beta1 messages. Stateless. */
final class ProtoMapping {

    static final String HEALTHY = "Healthy";
    static final String UNHEALTHY = "Unhealthy";

    private ProtoMapping() {
    }

    static ListAndWatchResponse toResponse(List<DeviceStatus> devices) {
        ListAndWatchResponse.Builder response = ListAndWatchResponse.newBuilder();
        for (DeviceStatus status : devices) {
            Device.Builder device = Device.newBuilder().setID(status.id()).setHealth(status.healthy() ? HEALTHY : UNHEALTHY);
            status.numaNode().ifPresent(node -> device.setTopology(TopologyInfo.newBuilder()
                    .addNodes(NUMANode.newBuilder().setID(node))));
            response.addDevices(device);
        }
        return response.build();
    }

    static ContainerAllocateResponse toResponse(ContainerAllocation allocation) {
        ContainerAllocateResponse.Builder response = ContainerAllocateResponse.newBuilder()
                .putAllEnvs(allocation.envs())
                .putAllAnnotations(allocation.annotations());
        allocation.mounts().forEach(m -> response.addMounts(Mount.newBuilder()
                .setContainerPath(m.containerPath()).setHostPath(m.hostPath()).setReadOnly(m.readOnly())));
        allocation.devices().forEach(d -> response.addDevices(DeviceSpec.newBuilder()
                .setContainerPath(d.containerPath()).setHostPath(d.hostPath()).setPermissions(d.permissions())));
        allocation.cdiDevices().forEach(name -> response.addCdiDevices(CDIDevice.newBuilder().setName(name)));
        return response.build();
    }
}
