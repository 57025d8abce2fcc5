package dev.kgpu.plugin.it;

import dev.kgpu.nvml.NvmlReturnCode;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.health.HealthTracker;
import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.node.NodeMetrics;
import dev.kgpu.plugin.node.NodeStatus.Problem;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import dev.kgpu.sim.kubelet.ResourceState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Health on the mock NVML: XIDs as the real event monitor delivers them, NVIDIA's ignore lists and
 * variables, MIG instances, NVML lost at run time and at start. XIDs are injected in order, so an event
 * that must change nothing is followed by one that must, and the check waits for the second.
 */
class HealthIT {

    static final String GPU = "nvidia.com/gpu";

    @TempDir
    Path dir;

    @Test
    void anXidThatNeedsAResetKeepsTheGpuDownUnlessTheOperatorAllowsIt() {
        Transitions transitions = new Transitions();
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100")
                .env("KGPU_HEALTH_RECOVERABLE_XIDS", "48").metrics(transitions).start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);

            plugin.mock.injectXid(plugin.gpuUuid(0), 79);
            plugin.mock.injectXid(plugin.gpuUuid(1), 48);
            plugin.await(GPU, r -> r.allocatable() == 6);
            plugin.clock.advance(Duration.ofDays(1));
            plugin.node.checkHealthNow();

            ResourceState state = plugin.await(GPU, r -> r.allocatable() == 7);
            assertThat(state.unhealthyIds()).containsExactly(plugin.gpuUuid(0));
            assertThat(transitions.of(plugin.gpuUuid(0))).singleElement().satisfies(t -> {
                assertThat(t.healthy()).isFalse();
                assertThat(t.reason()).isEqualTo("XID 79 (needs a GPU reset: GPU has fallen off the bus)");
            });
            assertThat(transitions.of(plugin.gpuUuid(1))).extracting(HealthTransition::healthy).containsExactly(false, true);
        }
    }

    @Test
    void nvidiasIgnoredXidsLeaveTheGpuHealthy() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100").start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);

            for (long xid : List.of(13L, 31L, 43L, 45L, 68L, 109L)) {
                plugin.mock.injectXid(plugin.gpuUuid(0), xid);
            }
            plugin.mock.injectXid(plugin.gpuUuid(1), 94);

            ResourceState state = plugin.await(GPU, r -> r.allocatable() == 7);
            assertThat(state.unhealthyIds()).containsExactly(plugin.gpuUuid(1));
        }
    }

    @Test
    void dpDisableHealthchecksAddsIgnoredXids() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100")
                .env("DP_DISABLE_HEALTHCHECKS", "94, 95").start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);

            plugin.mock.injectXid(plugin.gpuUuid(0), 94);
            plugin.mock.injectXid(plugin.gpuUuid(0), 95);
            plugin.mock.injectXid(plugin.gpuUuid(1), 79);

            assertThat(plugin.await(GPU, r -> r.allocatable() == 7).unhealthyIds()).containsExactly(plugin.gpuUuid(1));
        }
    }

    @Test
    void dpEnableHealthchecksCountsXidsEvenWhenAllAreDisabled() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100")
                .env("DP_DISABLE_HEALTHCHECKS", "all").env("DP_ENABLE_HEALTHCHECKS", "13").start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);

            plugin.mock.injectXid(plugin.gpuUuid(0), 79);
            plugin.mock.injectXid(plugin.gpuUuid(1), 13);

            assertThat(plugin.await(GPU, r -> r.allocatable() == 7).unhealthyIds()).containsExactly(plugin.gpuUuid(1));
        }
    }

    @Test
    void dpDisableHealthchecksAllWatchesNoEvents() {
        Transitions transitions = new Transitions();
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).env("DP_DISABLE_HEALTHCHECKS", "all")
                .metrics(transitions).start()) {
            plugin.await(GPU, r -> r.allocatable() == 1);
            Await.until(() -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("nvml-health-events")),
                    "no NVML event thread");

            plugin.mock.injectXid(plugin.gpuUuid(0), 79);

            // with no event thread nothing reads the XID: nothing can change later
            assertThat(plugin.node.checkHealthNow().transitions()).isEmpty();
            assertThat(transitions.seen).isEmpty();
            assertThat(plugin.kubelet.resource(GPU).orElseThrow().allocatable()).isEqualTo(1);
        }
    }

    @SuppressWarnings("unchecked")
    static String migUuid(MockNvmlPlugin plugin, int gpu, int mig) {
        List<Map<String, Object>> devices = (List<Map<String, Object>>) MockProfile.value(plugin.profile.gpu(gpu), "mig.devices").orElseThrow();
        return (String) devices.get(mig).get("uuid");
    }

    @Test
    void migXidsHitTheirInstanceAndWholeGpuXidsHitEveryInstance() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("mig-mixed").env("MIG_STRATEGY", "mixed").start()) {
            plugin.awaitCapacity(Map.of(
                    "nvidia.com/mig-1g.10gb", 9L, "nvidia.com/mig-1g.10gb.me", 1L,
                    "nvidia.com/mig-1g.20gb", 1L, "nvidia.com/mig-2g.20gb", 4L, // 2 whole, 2 of 1c.2g.20gb
                    "nvidia.com/mig-3g.40gb", 2L, "nvidia.com/mig-4g.40gb", 1L));

            String one = migUuid(plugin, 0, 3);
            plugin.mock.injectXid(one, 94);
            assertThat(plugin.await("nvidia.com/mig-1g.10gb", r -> r.allocatable() == 8).unhealthyIds()).containsExactly(one);

            plugin.mock.injectXid(plugin.gpuUuid(1), 94);
            // GPU 1 holds 3g.40gb, 2g.20gb and two 1g.10gb
            plugin.await("nvidia.com/mig-1g.10gb", r -> r.allocatable() == 6);
            plugin.await("nvidia.com/mig-3g.40gb", r -> r.allocatable() == 1);
            plugin.await("nvidia.com/mig-2g.20gb", r -> r.allocatable() == 3); // GPU 3's three stay
            assertThat(plugin.kubelet.resource("nvidia.com/mig-4g.40gb").orElseThrow().allocatable())
                    .as("GPU 2's MIG device is not hit").isEqualTo(1);

            plugin.clock.advance(HealthPolicy.DEFAULT_QUIET_PERIOD);
            plugin.node.checkHealthNow();
            plugin.await("nvidia.com/mig-1g.10gb", r -> r.allocatable() == 9);
        }
    }

    @Test
    void nvmlLostAtRunTimeMarksEverythingUnhealthyUntilItAnswersAgain() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100").start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);
            Await.until(() -> plugin.node.status().ready(), "registered");

            plugin.mock.failNext("nvmlDeviceGetMemoryInfo_v2", NvmlReturnCode.ERROR_GPU_IS_LOST, -1);
            plugin.mock.failNext("nvmlEventSetWait_v2", NvmlReturnCode.ERROR_DRIVER_NOT_LOADED, -1);

            ResourceState down = plugin.await(GPU, r -> r.allocatable() == 0);
            assertThat(down.capacity()).isEqualTo(8);
            HealthTracker.CheckResult stillLost = plugin.node.checkHealthNow();
            assertThat(stillLost.nvmlRestored()).isFalse();
            assertThat(stillLost.stillFailing()).hasSize(8);
            assertThat(plugin.node.status().ready()).as("still registered: the kubelet sees Unhealthy devices").isTrue();

            plugin.mock.clearFailures();
            assertThat(plugin.node.checkHealthNow().nvmlRestored()).isTrue();
            plugin.await(GPU, r -> r.allocatable() == 8);

            // the event monitor runs again: a new XID is seen
            Await.until(() -> Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("nvml-health-events")),
                    "the NVML event thread restarted");
            plugin.mock.injectXid(plugin.gpuUuid(2), 94);
            assertThat(plugin.await(GPU, r -> r.allocatable() == 7).unhealthyIds()).containsExactly(plugin.gpuUuid(2));
        }
    }

    @Test
    void aGpuThatStopsAnsweringProbesTurnsUnhealthyWithoutAnEvent() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).start()) {
            plugin.await(GPU, r -> r.allocatable() == 1);

            plugin.mock.failNext("nvmlDeviceGetMemoryInfo_v2", NvmlReturnCode.ERROR_GPU_IS_LOST, -1);
            HealthTracker.CheckResult down = plugin.node.checkHealthNow();
            assertThat(down.transitions()).singleElement().satisfies(t -> {
                assertThat(t.uuid()).isEqualTo(plugin.gpuUuid(0));
                assertThat(t.healthy()).isFalse();
                assertThat(t.reason()).contains("NVML probe failed").contains("GPU is lost");
            });
            plugin.await(GPU, r -> r.allocatable() == 0);

            plugin.mock.clearFailures();
            plugin.node.checkHealthNow();
            plugin.await(GPU, r -> r.allocatable() == 1);
        }
    }

    @Test
    void nvmlFailingAtStartRegistersNothingAndRetries() {
        try (MockNvmlPlugin plugin = startWithBrokenNvml("false")) {
            Await.until(() -> plugin.node.status().problems().stream().anyMatch(p ->
                    p instanceof Problem.DevicesUnreadable u && u.reason().startsWith("NVML could not start")), "the NVML failure reported");
            assertThat(plugin.kubelet.resources()).isEmpty();
            assertThat(plugin.node.status().ready()).isFalse();
            assertThat(plugin.fatal).isEmpty();

            // the next retry (at most 0.5 s away in MockNvmlPlugin) finds NVML working
            plugin.mock.clearFailures();

            plugin.await(GPU, r -> r.allocatable() == 1);
            Await.until(() -> plugin.node.status().ready(), "readiness");
        }
    }

    @Test
    void nvmlFailingAtStartWithFailOnInitErrorGivesUp() {
        try (MockNvmlPlugin plugin = startWithBrokenNvml("true")) {
            Await.until(() -> !plugin.fatal.isEmpty(), "the supervisor giving up");
            assertThat(plugin.fatal).singleElement().asString().startsWith("NVML could not start: nvmlInit_v2");
            assertThat(plugin.kubelet.resources()).isEmpty();
        }
    }

    /** The health transitions the plugin counted, in order. */
    static final class Transitions implements NodeMetrics {
        final List<HealthTransition> seen = new CopyOnWriteArrayList<>();

        @Override
        public void healthTransition(HealthTransition transition) {
            seen.add(transition);
        }

        List<HealthTransition> of(String uuid) {
            return seen.stream().filter(t -> t.uuid().equals(uuid)).toList();
        }
    }

    private MockNvmlPlugin startWithBrokenNvml(String failOnInitError) {
        // MockNvmlPlugin resets the mock before it selects the profile, so break NVML right after
        MockNvmlPlugin.Builder builder = MockNvmlPlugin.builder(dir).env("FAIL_ON_INIT_ERROR", failOnInitError);
        dev.kgpu.nvml.mock.MockNvml.load().failNext("nvmlInit_v2", NvmlReturnCode.ERROR_DRIVER_NOT_LOADED, -1);
        return builder.startKeepingFailures();
    }
}
