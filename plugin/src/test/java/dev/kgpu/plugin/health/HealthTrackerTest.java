package dev.kgpu.plugin.health;

import dev.kgpu.plugin.devices.DeviceProbe;
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

    final TestClock clock = new TestClock();
    final Set<String> failingProbes = new HashSet<>();
    final List<HealthTransition> published = new CopyOnWriteArrayList<>();
    final DeviceProbe probe = d -> failingProbes.contains(d.uuid()) ? Optional.of("GPU is lost") : Optional.empty();

    Gpu gpu0 = Devices.gpu(0);
    Gpu gpu1 = Devices.gpu(1);
    HealthTracker tracker;

    @BeforeEach
    void track() {
        tracker = tracker(new HealthPolicy(HealthChecks.DEFAULT, QUIET, Set.of()));
        tracker.track(List.of(gpu0, gpu1));
    }

    HealthTracker tracker(HealthPolicy policy) {
        HealthTracker created = new HealthTracker(policy, clock);
        created.addListener(published::addAll);
        return created;
    }

    void xid(String gpuUuid, long xid) {
        tracker.onXid(gpuUuid, xid, OptionalInt.empty(), OptionalInt.empty());
    }

    HealthTracker.CheckResult check() {
        return tracker.check(probe);
    }

    /** The reason of the last transition that marked {@code uuid} Unhealthy. */
    String whyUnhealthy(String uuid) {
        return published.stream().filter(t -> t.uuid().equals(uuid) && !t.healthy()).reduce((a, b) -> b)
                .orElseThrow().reason();
    }

    @Test
    void criticalXidMarksOnlyThatGpuAtOnce() {
        xid(gpu0.uuid(), 94);

        assertThat(published).singleElement().satisfies(t -> {
            assertThat(t.uuid()).isEqualTo(gpu0.uuid());
            assertThat(t.healthy()).isFalse();
            assertThat(t.reason()).isEqualTo("XID 94");
        });
        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();
        assertThat(tracker.isHealthy(gpu1.uuid())).isTrue();
    }

    @Test
    void recoverableXidRecoversAfterTheQuietPeriodAndASuccessfulProbe() {
        xid(gpu0.uuid(), 94);

        clock.advance(QUIET.minusSeconds(1));
        assertThat(check().recovered()).isEmpty();
        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();

        clock.advance(Duration.ofSeconds(1));
        HealthTracker.CheckResult result = check();

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
        xid(gpu0.uuid(), 94);
        clock.advance(Duration.ofSeconds(50));
        xid(gpu0.uuid(), 92);
        assertThat(published).as("already Unhealthy: no new transition").hasSize(1);

        clock.advance(Duration.ofSeconds(50));
        assertThat(check().recovered()).isEmpty();
        clock.advance(Duration.ofSeconds(10));
        assertThat(check().recovered()).hasSize(1);
    }

    @Test
    void aDeviceThatDoesNotAnswerStaysUnhealthyAndIsProbedAgainLater() {
        xid(gpu0.uuid(), 94);
        failingProbes.add(gpu0.uuid());
        clock.advance(QUIET);

        HealthTracker.CheckResult result = check();
        assertThat(result.recovered()).isEmpty();
        assertThat(result.stillFailing()).singleElement().asString().contains("GPU is lost");

        failingProbes.clear();
        clock.advance(Duration.ofSeconds(5));
        assertThat(check().recovered()).hasSize(1);
    }

    @ParameterizedTest(name = "XID {0} needs a reset")
    @ValueSource(longs = {48, 79, 95})
    void xidsThatNeedAResetNeverRecoverOnTheirOwn(long xid) {
        tracker.onXid(gpu0.uuid(), xid, OptionalInt.empty(), OptionalInt.empty());
        clock.advance(Duration.ofDays(1));

        assertThat(check().recovered()).isEmpty();
        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();
        assertThat(whyUnhealthy(gpu0.uuid())).contains("needs a GPU reset");
    }

    @Test
    void aResetXidOnARecoveringDeviceKeepsItDown() {
        xid(gpu0.uuid(), 94);
        xid(gpu0.uuid(), 79);
        xid(gpu0.uuid(), 94);
        clock.advance(Duration.ofDays(1));

        assertThat(check().recovered()).isEmpty();
        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();
    }

    @Test
    void operatorMayAllowAResetXidToRecover() {
        tracker = tracker(new HealthPolicy(HealthChecks.DEFAULT, QUIET, Set.of(48L)));
        tracker.track(List.of(gpu0));
        xid(gpu0.uuid(), 48);
        clock.advance(QUIET);

        assertThat(check().recovered()).hasSize(1);
    }

    @Test
    void aZeroQuietPeriodTurnsRecoveryOff() {
        tracker = tracker(new HealthPolicy(HealthChecks.DEFAULT, Duration.ZERO, Set.of()));
        tracker.track(List.of(gpu0));
        xid(gpu0.uuid(), 94);
        clock.advance(Duration.ofDays(1));

        assertThat(check().recovered()).isEmpty();
    }

    @ParameterizedTest(name = "XID {0} is ignored by default")
    @ValueSource(longs = {13, 31, 43, 45, 68, 109})
    void nvidiasIgnoredXidsChangeNothing(long xid) {
        xid(gpu0.uuid(), xid);

        assertThat(published).isEmpty();
        assertThat(tracker.isHealthy(gpu0.uuid())).isTrue();
    }

    @Test
    void aPolicyDecidesWhichXidsCount() {
        // DP_DISABLE_HEALTHCHECKS=all with DP_ENABLE_HEALTHCHECKS=13
        tracker = tracker(new HealthPolicy(new HealthChecks(true, Set.of(), false, Set.of(13L)), QUIET, Set.of()));
        tracker.track(List.of(gpu0));

        xid(gpu0.uuid(), 79);
        assertThat(published).isEmpty();
        xid(gpu0.uuid(), 13);
        assertThat(published).extracting(HealthTransition::reason).containsExactly("XID 13");
    }

    @Test
    void unknownGpusAreIgnored() {
        xid("GPU-unknown", 79);

        assertThat(published).isEmpty();
    }

    @Test
    void migEventsHitOnlyTheNamedInstanceAndWholeGpuEventsHitAll() {
        Gpu mig = Devices.migGpu(2, "1g.10gb", "1g.10gb", "2g.20gb");
        List<PhysicalDevice> devices = new ArrayList<>(mig.migDevices());
        tracker.track(devices);

        tracker.onXid(mig.uuid(), 94, OptionalInt.of(2), OptionalInt.of(0));
        assertThat(published).extracting(HealthTransition::uuid).containsExactly(mig.migDevices().get(1).uuid());

        published.clear();
        tracker.onXid(mig.uuid(), 94, OptionalInt.empty(), OptionalInt.empty());
        assertThat(published).extracting(HealthTransition::uuid)
                .containsExactly(mig.migDevices().get(0).uuid(), mig.migDevices().get(2).uuid());
    }

    @Test
    void nvmlLostMarksEverythingAndRecoveryRestoresItWhenProbesAnswer() {
        failingProbes.add(gpu0.uuid());
        failingProbes.add(gpu1.uuid());

        tracker.onNvmlLost("nvmlEventSetWait: GPU is lost");
        assertThat(published).hasSize(2).allSatisfy(t -> assertThat(t.reason()).isEqualTo("NVML lost: nvmlEventSetWait: GPU is lost"));
        HealthTracker.CheckResult stillDown = check();
        assertThat(stillDown.recovered()).isEmpty();
        assertThat(stillDown.nvmlRestored()).isFalse();

        failingProbes.clear();
        HealthTracker.CheckResult back = check();
        assertThat(back.recovered()).hasSize(2);
        assertThat(back.nvmlRestored()).isTrue();
        assertThat(check().nvmlRestored()).as("restored once").isFalse();
    }

    @Test
    void aDeviceWithAnXidStaysDownWhenNvmlComesBack() {
        xid(gpu0.uuid(), 79);
        tracker.onNvmlLost("driver unloaded");

        HealthTracker.CheckResult back = check();

        assertThat(back.recovered()).extracting(HealthTransition::uuid).containsExactly(gpu1.uuid());
        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();
    }

    @Test
    void aHealthyDeviceThatStopsAnsweringTurnsUnhealthyAtOnceAndBackWhenItAnswers() {
        failingProbes.add(gpu1.uuid());

        HealthTracker.CheckResult down = check();
        assertThat(down.transitions()).singleElement().satisfies(t -> {
            assertThat(t.uuid()).isEqualTo(gpu1.uuid());
            assertThat(t.healthy()).isFalse();
            assertThat(t.reason()).isEqualTo("NVML probe failed: GPU is lost");
        });

        failingProbes.clear();
        assertThat(check().recovered()).extracting(HealthTransition::uuid).containsExactly(gpu1.uuid());
    }

    @Test
    void retrackingKeepsTheStateOfKnownDevices() {
        xid(gpu0.uuid(), 79);
        tracker.track(List.of(gpu0, gpu1, Devices.gpu(2)));

        assertThat(tracker.isHealthy(gpu0.uuid())).isFalse();
        assertThat(tracker.isHealthy(Devices.gpuUuid(2))).isTrue();
    }
}
