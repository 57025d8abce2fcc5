package dev.kgpu.plugin.health;

import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.testing.Devices;
import dev.kgpu.plugin.testing.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class HealthTrackerTest {

    private static final Duration QUIET = Duration.ofSeconds(60);
    private static final java.util.function.LongPredicate DEFAULT_CRITICAL = HealthPolicy.defaults().critical();

    final TestClock clock = new TestClock();
    final Set<String> failingProbes = new HashSet<>();
    final List<HealthTransition> published = new CopyOnWriteArrayList<>();
    final DeviceProbe probe = d -> failingProbes.contains(d.uuid()) ? Optional.of("GPU is lost") : Optional.empty();

    Gpu gpu0 = Devices.gpu(0);
    Gpu gpu1 = Devices.gpu(1);
    HealthTracker tracker;

    @BeforeEach
    void track() {
        tracker = tracker(new HealthPolicy(DEFAULT_CRITICAL, true, QUIET, Set.of()));
        tracker.track(List.of(gpu0, gpu1));
    }

    HealthTracker tracker(HealthPolicy policy) {
        return new HealthTracker(policy, clock, probe, published::addAll);
    }

    @Test
    void criticalXidMarksOnlyThatGpuAtOnce() {
        List<HealthTransition> transitions = tracker.onXid(gpu0.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());

        assertThat(transitions).singleElement().satisfies(t -> {
            assertThat(t.uuid()).isEqualTo(gpu0.uuid());
            assertThat(t.healthy()).isFalse();
            assertThat(t.reason()).isEqualTo("XID 94");
        });
        assertThat(published).isEqualTo(transitions);
        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();
        assertThat(tracker.isHealthy(gpu1.uuid())).isTrue();
    }

    @Test
    void recoverableXidRecoversAfterTheQuietPeriodAndASuccessfulProbe() {
        tracker.onXid(gpu0.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());

        clock.advance(QUIET.minusSeconds(1));
        assertThat(tracker.check().recovered()).isEmpty();
        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();

        clock.advance(Duration.ofSeconds(1));
        HealthTracker.CheckResult result = tracker.check();

        assertThat(result.recovered()).singleElement().satisfies(t -> {
            assertThat(t.uuid()).isEqualTo(gpu0.uuid());
            assertThat(t.healthy()).isTrue();
            assertThat(t.reason()).contains("XID 94");
        });
        assertThat(tracker.isHealthy(gpu0.uuid())).isTrue();
        assertThat(published).extracting(HealthTransition::healthy).containsExactly(false, true);
    }

    @Test
    void aNewXidRestartsTheQuietPeriod() {
        tracker.onXid(gpu0.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());
        clock.advance(Duration.ofSeconds(50));
        assertThat(tracker.onXid(gpu0.uuid(), 92, OptionalInt.empty(), OptionalInt.empty())).isEmpty();

        clock.advance(Duration.ofSeconds(50));
        assertThat(tracker.check().recovered()).isEmpty();
        clock.advance(Duration.ofSeconds(10));
        assertThat(tracker.check().recovered()).hasSize(1);
    }

    @Test
    void aDeviceThatDoesNotAnswerStaysUnhealthyAndIsProbedAgainLater() {
        tracker.onXid(gpu0.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());
        failingProbes.add(gpu0.uuid());
        clock.advance(QUIET);

        HealthTracker.CheckResult result = tracker.check();
        assertThat(result.recovered()).isEmpty();
        assertThat(result.stillFailing()).singleElement().asString().contains("GPU is lost");

        failingProbes.clear();
        clock.advance(Duration.ofSeconds(5));
        assertThat(tracker.check().recovered()).hasSize(1);
    }

    @ParameterizedTest(name = "XID {0} needs a reset")
    @ValueSource(longs = {48, 79, 95})
    void xidsThatNeedAResetNeverRecoverOnTheirOwn(long xid) {
        tracker.onXid(gpu0.uuid(), xid, OptionalInt.empty(), OptionalInt.empty());
        clock.advance(Duration.ofDays(1));

        assertThat(tracker.check().recovered()).isEmpty();
        assertThat(tracker.unhealthyReason(gpu0.uuid())).get().asString().contains("needs a GPU reset");
    }

    @Test
    void aResetXidOnARecoveringDeviceKeepsItDown() {
        tracker.onXid(gpu0.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());
        tracker.onXid(gpu0.uuid(), 79, OptionalInt.empty(), OptionalInt.empty());
        tracker.onXid(gpu0.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());
        clock.advance(Duration.ofDays(1));

        assertThat(tracker.check().recovered()).isEmpty();
        assertThat(tracker.unhealthyReason(gpu0.uuid())).contains("XID 79 (needs a GPU reset: GPU has fallen off the bus)");
    }

    @Test
    void operatorMayAllowAResetXidToRecover() {
        tracker = tracker(new HealthPolicy(DEFAULT_CRITICAL, true, QUIET, Set.of(48L)));
        tracker.track(List.of(gpu0));
        tracker.onXid(gpu0.uuid(), 48, OptionalInt.empty(), OptionalInt.empty());
        clock.advance(QUIET);

        assertThat(tracker.check().recovered()).hasSize(1);
    }

    @Test
    void aZeroQuietPeriodTurnsRecoveryOff() {
        tracker = tracker(new HealthPolicy(DEFAULT_CRITICAL, true, Duration.ZERO, Set.of()));
        tracker.track(List.of(gpu0));
        tracker.onXid(gpu0.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());
        clock.advance(Duration.ofDays(1));

        assertThat(tracker.check().recovered()).isEmpty();
    }

    @ParameterizedTest(name = "XID {0} is ignored by default")
    @ValueSource(longs = {13, 31, 43, 45, 68, 109})
    void nvidiasIgnoredXidsChangeNothing(long xid) {
        assertThat(tracker.onXid(gpu0.uuid(), xid, OptionalInt.empty(), OptionalInt.empty())).isEmpty();
        assertThat(tracker.isHealthy(gpu0.uuid())).isTrue();
    }

    @Test
    void aPolicyDecidesWhichXidsCount() {
        // DP_DISABLE_HEALTHCHECKS=all with DP_ENABLE_HEALTHCHECKS=13, as the config package maps it
        tracker = tracker(new HealthPolicy(xid -> xid == 13, true, QUIET, Set.of()));
        tracker.track(List.of(gpu0));

        assertThat(tracker.onXid(gpu0.uuid(), 79, OptionalInt.empty(), OptionalInt.empty())).isEmpty();
        assertThat(tracker.onXid(gpu0.uuid(), 13, OptionalInt.empty(), OptionalInt.empty())).hasSize(1);
    }

    @Test
    void unknownGpusAreIgnored() {
        assertThat(tracker.onXid("GPU-unknown", 79, OptionalInt.empty(), OptionalInt.empty())).isEmpty();
        assertThat(published).isEmpty();
    }

    @Test
    void migEventsHitOnlyTheNamedInstanceAndWholeGpuEventsHitAll() {
        Gpu mig = Devices.migGpu(2, "1g.10gb", "1g.10gb", "2g.20gb");
        List<PhysicalDevice> devices = new ArrayList<>(mig.migDevices());
        tracker.track(devices);

        List<HealthTransition> one = tracker.onXid(mig.uuid(), 94, OptionalInt.of(2), OptionalInt.of(0));
        assertThat(one).extracting(HealthTransition::uuid).containsExactly(mig.migDevices().get(1).uuid());

        List<HealthTransition> all = tracker.onXid(mig.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());
        assertThat(all).extracting(HealthTransition::uuid)
                .containsExactly(mig.migDevices().get(0).uuid(), mig.migDevices().get(2).uuid());
    }

    @Test
    void nvmlLostMarksEverythingAndRecoveryRestoresItWhenProbesAnswer() {
        failingProbes.add(gpu0.uuid());
        failingProbes.add(gpu1.uuid());

        assertThat(tracker.onNvmlLost("nvmlEventSetWait: GPU is lost")).hasSize(2);
        assertThat(tracker.nvmlLost()).isTrue();
        HealthTracker.CheckResult stillDown = tracker.check();
        assertThat(stillDown.recovered()).isEmpty();
        assertThat(stillDown.nvmlRestored()).isFalse();

        failingProbes.clear();
        HealthTracker.CheckResult back = tracker.check();
        assertThat(back.recovered()).hasSize(2);
        assertThat(back.nvmlRestored()).isTrue();
        assertThat(tracker.nvmlLost()).isFalse();
    }

    @Test
    void aDeviceWithAnXidStaysDownWhenNvmlComesBack() {
        tracker.onXid(gpu0.uuid(), 79, OptionalInt.empty(), OptionalInt.empty());
        tracker.onNvmlLost("driver unloaded");

        HealthTracker.CheckResult back = tracker.check();

        assertThat(back.recovered()).extracting(HealthTransition::uuid).containsExactly(gpu1.uuid());
        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();
    }

    @Test
    void aHealthyDeviceThatStopsAnsweringTurnsUnhealthyAtOnceAndBackWhenItAnswers() {
        failingProbes.add(gpu1.uuid());

        HealthTracker.CheckResult down = tracker.check();
        assertThat(down.transitions()).singleElement().satisfies(t -> {
            assertThat(t.uuid()).isEqualTo(gpu1.uuid());
            assertThat(t.healthy()).isFalse();
            assertThat(t.reason()).isEqualTo("NVML probe failed: GPU is lost");
        });

        failingProbes.clear();
        assertThat(tracker.check().recovered()).extracting(HealthTransition::uuid).containsExactly(gpu1.uuid());
    }

    @Test
    void retrackingKeepsTheStateOfKnownDevices() {
        tracker.onXid(gpu0.uuid(), 79, OptionalInt.empty(), OptionalInt.empty());
        tracker.track(List.of(gpu0, gpu1, Devices.gpu(2)));

        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();
        assertThat(tracker.isHealthy(Devices.gpuUuid(2))).isTrue();
    }
}
