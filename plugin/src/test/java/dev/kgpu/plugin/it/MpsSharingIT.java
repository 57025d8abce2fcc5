package dev.kgpu.plugin.it;

import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Mount;
import dev.kgpu.plugin.testing.MockMpsDaemon;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MPS sharing end to end on the mock NVML: the device plugin holds an MPS-shared resource back until kgpu's MPS control
 * daemon agent runs its daemon (the fake {@code nvidia-cuda-mps-control}), withdraws it while the daemon is gone, and
 * serves the node's other resources all along.
 */
class MpsSharingIT {

    static final String GPU = "nvidia.com/gpu";
    static final String SHARED = "nvidia.com/gpu.mps";

    /** GPUs 0 and 1 shared with MPS (4 replicas each) as nvidia.com/gpu.mps; the other six stay whole. */
    static final String CONFIG = """
            version: v1
            flags:
              mpsRoot: /run/nvidia/mps
            sharing:
              mps:
                resources:
                - name: nvidia.com/gpu
                  rename: nvidia.com/gpu.mps
                  devices: [0, 1]
                  replicas: 4
            """;

    @TempDir
    Path dir;

    MockNvmlPlugin plugin(Path root) {
        return MockNvmlPlugin.builder(dir).profile("dgx-a100").config(CONFIG)
                .env("KGPU_HONOUR_SHARING_DEVICES", "true")
                .env("KGPU_MPS_CONTAINER_ROOT", root.toString())
                .env("KGPU_MPS_CONTROL", MockMpsDaemon.fake().toString())
                .env("KGPU_HEALTH_CHECK_INTERVAL", "1s")
                .start();
    }

    MockMpsDaemon daemon() {
        return MockMpsDaemon.start(dir.resolve("agent"), CONFIG, Map.of("KGPU_HONOUR_SHARING_DEVICES", "true",
                "KGPU_MPS_CONTAINER_ROOT", dir.resolve("mps").toString()));
    }

    @Test
    void anMpsResourceIsAdvertisedOnlyWhileItsDaemonRuns() {
        try (MockNvmlPlugin plugin = plugin(dir.resolve("mps"))) {
            plugin.await(GPU, r -> r.allocatable() == 6);
            assertThat(plugin.kubelet.capacity()).as("nothing of %s before its daemon runs", SHARED)
                    .doesNotContainKey(SHARED);

            MockMpsDaemon agent = daemon();
            try {
                agent.awaitReady();
                plugin.await(SHARED, r -> r.allocatable() == 8);
                assertThat(agent.ask(SHARED, "get_default_active_thread_percentage").output()).isEqualTo("25.0");

                AllocateResponse response = plugin.pluginClient("nvidia-gpu.mps.sock").allocate(AllocateRequest.newBuilder()
                        .addContainerRequests(ContainerAllocateRequest.newBuilder()
                                .addDevicesIds(plugin.gpuUuid(1) + "::2")).build());
                assertThat(response.getContainerResponses(0).getEnvsMap())
                        .containsEntry("CUDA_MPS_PIPE_DIRECTORY", "/mps/nvidia.com/gpu.mps/pipe");
                assertThat(response.getContainerResponses(0).getMountsList()).extracting(Mount::getHostPath)
                        .containsExactly("/run/nvidia/mps/nvidia.com/gpu.mps/pipe", "/run/nvidia/mps/shm");
            } finally {
                agent.close();
            }

            plugin.await(SHARED, r -> r.allocatable() == 0);
            assertThat(plugin.kubelet.capacity()).containsEntry(GPU, 6L);

            try (MockMpsDaemon again = daemon()) {
                again.awaitReady();
                plugin.await(SHARED, r -> r.allocatable() == 8 && r.registrations() == 2);
                assertThat(plugin.kubelet.capacity()).containsEntry(GPU, 6L);
            }
        }
    }
}
