package dev.kgpu.plugin.deviceplugin.allocation;

import java.util.List;
import java.util.Map;

/**
 * What one container needs to use its devices: the domain form of the kubelet's
 * {@code ContainerAllocateResponse}. Immutable.
 */
public record ContainerAllocation(Map<String, String> envs, List<Mount> mounts, List<DeviceNode> devices,
                                  Map<String, String> annotations, List<String> cdiDevices) {

    public ContainerAllocation {
        envs = Map.copyOf(envs);
        mounts = List.copyOf(mounts);
        devices = List.copyOf(devices);
        annotations = Map.copyOf(annotations);
        cdiDevices = List.copyOf(cdiDevices);
    }

    /** A bind mount into the container. */
    public record Mount(String containerPath, String hostPath, boolean readOnly) {
    }

    /** A device node the runtime creates in the container; {@code permissions} any of r, w, m. */
    public record DeviceNode(String containerPath, String hostPath, String permissions) {
    }
}
