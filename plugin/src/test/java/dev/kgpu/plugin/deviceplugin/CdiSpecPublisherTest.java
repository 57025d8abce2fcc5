package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.cdi.CdiRegistry;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.SimulatedDriverRoot;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real plugin on the mock NVML with a CDI strategy: the spec it writes resolves, through the CDI library's
 * rules ({@link CdiRegistry}), every name its Allocate hands out; it is rewritten on SIGHUP and removed when the
 * plugin stops.
 */
class CdiSpecPublisherTest {

    static final String GPU = "nvidia.com/gpu";

    @TempDir
    Path dir;

    @AfterEach
    void resetMock() {
        MockNvml.load().reset();
    }

    /** A simulated driver root for {@code profile} under {@code dir/node}, as the simulated node lays it out. */
    private Path driverRoot(String profile) throws IOException {
        Path root = dir.resolve("node");
        MockNvml mock = MockNvml.load();
        mock.useProfile(profile);
        try (Nvml nvml = Nvml.open()) {
            SimulatedDriverRoot.write(root, nvml.driverVersion(), SimulatedDriverRoot.gpusOf(nvml), Optional.of(nvml.libraryPath()));
        }
        return root;
    }

    /** @param strategy {@code DEVICE_LIST_STRATEGY}, or null to leave it to the config file */
    private MockNvmlPlugin.Builder plugin(String profile, Path root, String strategy) {
        MockNvmlPlugin.Builder builder = MockNvmlPlugin.builder(dir).profile(profile);
        if (strategy != null) {
            builder.env("DEVICE_LIST_STRATEGY", strategy);
        }
        return builder
                .env("CONTAINER_DRIVER_ROOT", root.toString())
                .env("NVIDIA_DRIVER_ROOT", root.toString())
                .env("KGPU_CDI_SPEC_DIR", dir.resolve("cdi").toString())
                .env("KGPU_PROC_ROOT", root.toString());
    }

    private Path spec() {
        return dir.resolve("cdi/k8s.device-plugin.nvidia.com-gpu.json");
    }

    private ContainerAllocateResponse allocate(MockNvmlPlugin plugin, String resource, int count) {
        PodAdmission admission = plugin.kubelet.admit(PodSpec.of("pod-" + System.nanoTime(), resource, count));
        assertThat(admission).isInstanceOf(PodAdmission.Admitted.class);
        return ((PodAdmission.Admitted) admission).allocation().container().response();
    }

    @Test
    void everyCdiNameAllocateHandsOutResolvesThroughTheSpecItWrote() throws IOException {
        Path root = driverRoot("dgx-a100");
        try (MockNvmlPlugin plugin = plugin("dgx-a100", root, "cdi-cri").start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);
            plugin.kubelet.await(() -> Files.exists(spec()), MockNvmlPlugin.WAIT, "the CDI spec");

            ContainerAllocateResponse response = allocate(plugin, GPU, 3);

            List<String> names = response.getCdiDevicesList().stream().map(d -> d.getName()).toList();
            assertThat(names).hasSize(3).allMatch(n -> n.startsWith("k8s.device-plugin.nvidia.com/gpu=GPU-"));
            CdiRegistry node = CdiRegistry.load(List.of(dir.resolve("cdi")));
            assertThat(node.errors()).isEmpty();
            CdiSpec.ContainerEdits edits = node.resolve(names);
            assertThat(edits.deviceNodes()).extracting(CdiSpec.DeviceNode::path)
                    .contains("/dev/nvidiactl", "/dev/nvidia-uvm").hasSize(4 + 3);
            assertThat(edits.mounts()).extracting(CdiSpec.Mount::containerPath)
                    .contains("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15", "/usr/bin/nvidia-smi");
            assertThat(edits.env()).contains("NVIDIA_VISIBLE_DEVICES=void");
            assertThat(response.getEnvsMap()).as("CDI alone: no NVIDIA_VISIBLE_DEVICES").doesNotContainKey("NVIDIA_VISIBLE_DEVICES");
        }
        assertThat(spec()).as("removed when the plugin stops").doesNotExist();
    }

    @Test
    void migDevicesByIndexResolveWithTheirCapabilityNodes() throws IOException {
        Path root = driverRoot("mig-mixed");
        try (MockNvmlPlugin plugin = plugin("mig-mixed", root, "cdi-annotations")
                .env("MIG_STRATEGY", "mixed").env("DEVICE_ID_STRATEGY", "index").start()) {
            plugin.await("nvidia.com/mig-1g.10gb.me", r -> r.allocatable() == 1);
            plugin.kubelet.await(() -> Files.exists(spec()), MockNvmlPlugin.WAIT, "the CDI spec");

            ContainerAllocateResponse response = allocate(plugin, "nvidia.com/mig-1g.10gb.me", 1);

            assertThat(response.getAnnotationsMap()).hasSize(1);
            String names = response.getAnnotationsMap().values().iterator().next();
            assertThat(names).isEqualTo("k8s.device-plugin.nvidia.com/gpu=2:2");
            CdiSpec.ContainerEdits edits = CdiRegistry.load(List.of(dir.resolve("cdi"))).resolve(List.of(names));
            assertThat(edits.deviceNodes()).extracting(CdiSpec.DeviceNode::path)
                    .contains("/dev/nvidia2", "/dev/nvidia-caps/nvidia-cap"
                            + SimulatedDriverRoot.gpuInstanceCapMinor(2, 11), "/dev/nvidia-caps/nvidia-cap"
                            + SimulatedDriverRoot.computeInstanceCapMinor(2, 11, 0));
        }
    }

    @Test
    void sharedReplicasResolveToTheirGpuAndAReloadWithoutCdiRemovesTheSpec() throws IOException {
        Path root = driverRoot("dgx-a100");
        try (MockNvmlPlugin plugin = plugin("dgx-a100", root, null).config("""
                version: v1
                flags:
                  plugin:
                    deviceListStrategy: cdi-cri
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """).start()) {
            plugin.await(GPU, r -> r.allocatable() == 32);
            plugin.kubelet.await(() -> Files.exists(spec()), MockNvmlPlugin.WAIT, "the CDI spec");
            assertThat(CdiRegistry.load(List.of(dir.resolve("cdi"))).deviceNames())
                    .as("one device per GPU, not per replica").hasSize(8);

            ContainerAllocateResponse response = allocate(plugin, GPU, 1);
            assertThat(response.getCdiDevicesList()).extracting(d -> d.getName())
                    .containsExactly("k8s.device-plugin.nvidia.com/gpu=" + IntStream.range(0, 8).mapToObj(plugin::gpuUuid)
                            .filter(u -> response.getCdiDevices(0).getName().endsWith(u)).findFirst().orElseThrow());

            plugin.rewriteConfig("""
                    version: v1
                    flags:
                      plugin:
                        deviceListStrategy: envvar
                    """);
            plugin.supervisor.reload();
            plugin.kubelet.await(() -> !Files.exists(spec()), MockNvmlPlugin.WAIT, "the CDI spec removed");
        }
    }
}
