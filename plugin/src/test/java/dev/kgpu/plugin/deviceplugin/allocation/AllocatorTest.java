package dev.kgpu.plugin.deviceplugin.allocation;

import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.testing.Devices;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AllocatorTest {

    final Gpu gpu0 = Devices.gpu(0);
    final Gpu gpu1 = Devices.gpu(1);
    final PluginResource gpus = new PluginResource("nvidia.com/gpu",
            List.of(AdvertisedDevice.whole(gpu0), AdvertisedDevice.whole(gpu1)), Replication.NONE);

    static AllocationSettings settings(boolean envvar, boolean volumeMounts, boolean cdiAnnotations, boolean cdiCri,
                                       boolean index, boolean specs) {
        return new AllocationSettings(envvar, volumeMounts, cdiAnnotations, cdiCri, index, specs, "/run/nvidia/driver",
                "cdi.k8s.io/", Optional.of("/run/nvidia/mps"), false, false, false);
    }

    /** The host has these two of the optional device nodes. */
    static final DeviceNodes DEVICE_NODES = (devRoot, path) -> Set.of("/dev/nvidiactl", "/dev/nvidia-uvm").contains(path);

    static PluginResource replicated(boolean mps, boolean failGreaterThanOne, Gpu... gpus) {
        List<AdvertisedDevice> devices = java.util.Arrays.stream(gpus)
                .flatMap(g -> IntStream.range(0, 4).mapToObj(i -> AdvertisedDevice.replica(g, i))).toList();
        return new PluginResource("nvidia.com/gpu", devices, new Replication.Shared(mps, 4, failGreaterThanOne));
    }

    @Test
    void envvarListsUuidsInRequestOrder() {
        ContainerAllocation a = new Allocator(settings(true, false, false, false, false, false), DEVICE_NODES, () -> "id")
                .allocate(gpus, List.of(gpu1.uuid(), gpu0.uuid()));

        assertThat(a.envs()).containsExactlyEntriesOf(java.util.Map.of("NVIDIA_VISIBLE_DEVICES", gpu1.uuid() + "," + gpu0.uuid()));
        assertThat(a.mounts()).isEmpty();
        assertThat(a.devices()).isEmpty();
        assertThat(a.annotations()).isEmpty();
    }

    @Test
    void indexStrategyPassesIndices() {
        ContainerAllocation a = new Allocator(settings(true, false, false, false, true, false), DEVICE_NODES, () -> "id")
                .allocate(gpus, List.of(gpu0.uuid(), gpu1.uuid()));

        assertThat(a.envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", "0,1");
    }

    @Test
    void migIndicesAreGpuColonMig() {
        Gpu mig = Devices.migGpu(3, "1g.10gb", "1g.10gb");
        PluginResource resource = new PluginResource("nvidia.com/mig-1g.10gb",
                mig.migDevices().stream().map(AdvertisedDevice::whole).toList(), Replication.NONE);

        ContainerAllocation a = new Allocator(settings(true, false, false, false, true, true), DEVICE_NODES, () -> "id")
                .allocate(resource, List.of(mig.migDevices().get(1).uuid()));

        assertThat(a.envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", "3:1");
        assertThat(a.devices()).extracting(ContainerAllocation.DeviceNode::containerPath)
                .containsExactly("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia3",
                        "/dev/nvidia-caps/nvidia-cap11", "/dev/nvidia-caps/nvidia-cap101");
    }

    @Test
    void volumeMountsPointTheVariableAtTheMountFolder() {
        ContainerAllocation a = new Allocator(settings(false, true, false, false, false, false), DEVICE_NODES, () -> "id")
                .allocate(gpus, List.of(gpu0.uuid()));

        assertThat(a.envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", "/var/run/nvidia-container-devices");
        assertThat(a.mounts()).containsExactly(new ContainerAllocation.Mount(
                "/var/run/nvidia-container-devices/" + gpu0.uuid(), "/dev/null", false));
    }

    @Test
    void cdiAnnotationsOnlyGiveNoVariable() {
        ContainerAllocation a = new Allocator(settings(false, false, true, false, false, true), DEVICE_NODES, () -> "resp-1")
                .allocate(gpus, List.of(gpu0.uuid()));

        assertThat(a.annotations()).containsExactlyEntriesOf(java.util.Map.of(
                "cdi.k8s.io/nvidia-device-plugin_resp-1", "k8s.device-plugin.nvidia.com/gpu=" + gpu0.uuid()));
        assertThat(a.envs()).isEmpty();
        assertThat(a.devices()).as("device specs are not passed with CDI only").isEmpty();
        assertThat(a.cdiDevices()).isEmpty();
    }

    @Test
    void cdiCriFillsCdiDevicesAndCombinesWithEnvvar() {
        ContainerAllocation a = new Allocator(settings(true, false, false, true, true, false), DEVICE_NODES, () -> "id")
                .allocate(gpus, List.of(gpu1.uuid()));

        assertThat(a.cdiDevices()).containsExactly("k8s.device-plugin.nvidia.com/gpu=1");
        assertThat(a.envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", "1");
    }

    @Test
    void deviceSpecsAreUnderTheDevRootAndSkipMissingOptionalNodes() {
        ContainerAllocation a = new Allocator(settings(true, false, false, false, false, true), DEVICE_NODES, () -> "id")
                .allocate(gpus, List.of(gpu1.uuid()));

        assertThat(a.devices()).containsExactly(
                new ContainerAllocation.DeviceNode("/dev/nvidiactl", "/run/nvidia/driver/dev/nvidiactl", "rw"),
                new ContainerAllocation.DeviceNode("/dev/nvidia-uvm", "/run/nvidia/driver/dev/nvidia-uvm", "rw"),
                new ContainerAllocation.DeviceNode("/dev/nvidia1", "/run/nvidia/driver/dev/nvidia1", "rw"));
    }

    @Test
    void replicasAreGivenAsTheirDevicesOnce() {
        PluginResource shared = replicated(false, false, gpu0, gpu1);

        ContainerAllocation a = new Allocator(settings(true, false, false, false, false, false), DEVICE_NODES, () -> "id")
                .allocate(shared, List.of(gpu0.uuid() + "::1", gpu0.uuid() + "::3", gpu1.uuid() + "::0"));

        assertThat(a.envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", gpu0.uuid() + "," + gpu1.uuid());
    }

    @Test
    void moreThanOneReplicaIsRefusedWhenAsked() {
        PluginResource shared = replicated(false, true, gpu0);
        Allocator allocator = new Allocator(settings(true, false, false, false, false, false), DEVICE_NODES, () -> "id");

        assertThatThrownBy(() -> allocator.allocate(shared, List.of(gpu0.uuid() + "::0", gpu0.uuid() + "::1")))
                .isInstanceOf(AllocationException.TooManyReplicas.class)
                .hasMessage("request for 'nvidia.com/gpu: 2' too large: maximum request size for shared resources is 1");
        assertThat(allocator.allocate(shared, List.of(gpu0.uuid() + "::2")).envs()).containsKey("NVIDIA_VISIBLE_DEVICES");
    }

    @Test
    void mpsAddsPipeAndSharedMemory() {
        PluginResource shared = replicated(true, true, gpu0);

        ContainerAllocation a = new Allocator(settings(true, false, false, false, false, false), DEVICE_NODES, () -> "id")
                .allocate(shared, List.of(gpu0.uuid() + "::0"));

        assertThat(a.envs()).containsEntry("CUDA_MPS_PIPE_DIRECTORY", "/mps/nvidia.com/gpu/pipe");
        assertThat(a.mounts()).containsExactly(
                new ContainerAllocation.Mount("/mps/nvidia.com/gpu/pipe", "/run/nvidia/mps/nvidia.com/gpu/pipe", false),
                new ContainerAllocation.Mount("/dev/shm", "/run/nvidia/mps/shm", false));
    }

    @Test
    void unknownIdsAreRefusedWithTheirName() {
        Allocator allocator = new Allocator(AllocationSettings.defaults(), (devRoot, path) -> false, () -> "id");

        assertThatThrownBy(() -> allocator.allocate(gpus, List.of(gpu0.uuid(), "GPU-nope")))
                .isInstanceOf(AllocationException.UnknownDevice.class)
                .hasMessage("invalid allocation request for 'nvidia.com/gpu': unknown device: GPU-nope");
        assertThatThrownBy(() -> allocator.allocate(gpus, List.of()))
                .isInstanceOf(AllocationException.BadRequest.class);
    }
}
