package dev.kgpu.plugin.it;

import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import dev.kgpu.sim.kubelet.DeviceState;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.ResourceState;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every shipped mock NVML profile through the real plugin and the kubelet simulator: registration,
 * the ListAndWatch list (IDs, health, NUMA node), an allocation, and an XID that marks a GPU Unhealthy
 * until its quiet period has passed and NVML answers again.
 */
class ProfilesIT {

    static final String GPU = "nvidia.com/gpu";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rtx3060", "dgx-a100", "dgx-h100", "mig-mixed", "large-256"})
    void registersListsAllocatesAndRecovers(String profileName) {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile(profileName).start()) {
            int gpus = plugin.gpuCount();

            ResourceState state = plugin.await(GPU, r -> r.allocatable() == gpus);
            Await.until(() -> plugin.node.status().ready(), "registered");
            assertThat(state.endpoint()).isEqualTo("nvidia-gpu.sock");
            assertThat(state.deviceIds()).containsExactlyElementsOf(IntStream.range(0, gpus).mapToObj(plugin::gpuUuid).toList());
            for (int i = 0; i < gpus; i++) {
                var gpu = plugin.profile.gpu(i);
                List<Long> numa = MockProfile.value(gpu, "numaNode").isPresent()
                        ? List.of(MockProfile.number(gpu, "numaNode").longValue()) : List.of();
                DeviceState device = state.devices().get(i);
                assertThat(device.numaNodes()).as("NUMA node of GPU %d", i).isEqualTo(numa);
            }

            int wanted = Math.min(gpus, 2);
            PodAdmission admission = plugin.kubelet.admit(PodSpec.of("cuda", GPU, wanted));
            assertThat(admission).isInstanceOfSatisfying(PodAdmission.Admitted.class, admitted -> {
                List<String> ids = admitted.allocation().deviceIds(GPU);
                assertThat(ids).hasSize(wanted);
                assertThat(admitted.allocation().container().envs())
                        .containsEntry("NVIDIA_VISIBLE_DEVICES", String.join(",", ids));
            });

            String victim = plugin.gpuUuid(gpus - 1);
            plugin.mock.injectXid(victim, 94);
            ResourceState down = plugin.await(GPU, r -> r.unhealthyIds().equals(List.of(victim)));
            assertThat(down.capacity()).isEqualTo(gpus);

            assertThat(plugin.node.checkHealthNow().recovered()).as("inside the quiet period").isEmpty();
            plugin.clock.advance(HealthPolicy.DEFAULT_QUIET_PERIOD);
            plugin.node.checkHealthNow();

            plugin.await(GPU, r -> r.allocatable() == gpus);
            assertThat(plugin.node.status().ready()).isTrue();
            assertThat(plugin.fatal).isEmpty();
        }
    }
}
