package dev.kgpu.discovery.run;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.publish.ScriptedSink;
import dev.kgpu.discovery.testing.TestSettings;
import dev.kgpu.nvml.NvmlException;
import dev.kgpu.nvml.NvmlReturnCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Discovery's lifecycle on the agent kit's supervisor, with NVML missing and a scripted sink: retries, recovery, SIGHUP, oneshot, fatal init. */
class DiscoveryHandlerTest {

    static final InstantSource CLOCK = InstantSource.fixed(Instant.ofEpochSecond(1_700_000_000L));
    static final Backoff.Policy FAST = new Backoff.Policy(Duration.ofMillis(10), Duration.ofMillis(40));

    @TempDir
    Path folder;

    final AtomicInteger nvmlOpens = new AtomicInteger();

    LabelingPass.NvmlOpener missingDriver() {
        return () -> {
            nvmlOpens.incrementAndGet();
            throw NvmlException.of(NvmlReturnCode.ERROR_DRIVER_NOT_LOADED, "nvmlInit_v2", "Driver Not Loaded");
        };
    }

    TestSettings.Discovery builder(boolean failOnInitError, boolean oneshot, Optional<Duration> interval) {
        return TestSettings.discovery("node-a", "kgpu")
                .node(Optional.empty(), folder.resolve("no-sysfs"), failOnInitError)
                .timing(oneshot, interval, FAST);
    }

    DiscoverySettings settings(boolean failOnInitError, boolean oneshot, Optional<Duration> interval) {
        return builder(failOnInitError, oneshot, interval).build();
    }

    static Labels minimal() {
        return Labels.builder()
                .put(Labels.TIMESTAMP, "1700000000")
                .build();
    }

    @Test
    void withoutNvmlItPublishesTheDriverlessLabelsIsNotReadyAndKeepsTryingNvml() throws Exception {
        ScriptedSink sink = new ScriptedSink(0);
        PassStatus status = new PassStatus();
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(
                new LabelingPass(missingDriver(), s -> sink, CLOCK), status,
                () -> settings(false, false, Optional.of(Duration.ofHours(1))), CLOCK,
                settings(false, false, Optional.of(Duration.ofHours(1))));

        assertThat(sink.published().poll(10, TimeUnit.SECONDS)).isEqualTo(minimal());
        // the sleep interval is an hour, but NVML is retried with the (fast) backoff
        await().atMost(Duration.ofSeconds(10)).until(() -> nvmlOpens.get() >= 3);
        assertThat(status.current().ready()).isFalse();
        assertThat(status.current().detail()).contains("NVML unavailable", "Driver Not Loaded");

        supervisor.stop(Duration.ofSeconds(10));
        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(0);
        assertThat(sink.closed()).isTrue();
    }

    @Test
    void failOnInitErrorStopsWithExitCode1() throws Exception {
        ScriptedSink sink = new ScriptedSink(0);
        PassStatus status = new PassStatus();
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(
                new LabelingPass(missingDriver(), s -> sink, CLOCK), status,
                () -> settings(true, false, Optional.empty()), CLOCK, settings(true, false, Optional.empty()));

        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(1);
        assertThat(sink.attempts()).isZero();
        assertThat(status.current().detail()).contains("FAIL_ON_INIT_ERROR=false");
    }

    @Test
    void refusedWritesAreRetriedWithBackoffUntilTheyGoThrough() throws Exception {
        ScriptedSink sink = new ScriptedSink(3);
        PassStatus status = new PassStatus();
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(
                new LabelingPass(missingDriver(), s -> sink, CLOCK), status,
                () -> settings(false, false, Optional.empty()), CLOCK, settings(false, false, Optional.empty()));

        assertThat(sink.published().poll(10, TimeUnit.SECONDS)).isEqualTo(minimal());
        assertThat(sink.attempts()).isEqualTo(4);
        supervisor.stop(Duration.ofSeconds(10));
        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(0);
    }

    /**
     * The step after the first published pass (a native daemon hands its start-up pages back there) runs once, after
     * that pass's labels went out: not while the first pass runs, which would then read its pages back from disk, and
     * not after a refused write or any later pass.
     */
    @Test
    void theStepAfterTheFirstPublishedPassRunsOnceAfterItsLabelsWentOut() throws Exception {
        ScriptedSink sink = new ScriptedSink(2);
        List<Integer> attemptsAtTheStep = new CopyOnWriteArrayList<>();
        DiscoverySettings daemon = settings(false, false, Optional.empty());
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(
                new LabelingPass(missingDriver(), s -> sink, CLOCK), new PassStatus(), () -> daemon, CLOCK, daemon,
                () -> attemptsAtTheStep.add(sink.attempts()));

        // two refused writes, then published; without NVML the passes go on with the fast backoff
        assertThat(sink.published().poll(10, TimeUnit.SECONDS)).isEqualTo(minimal());
        assertThat(sink.published().poll(10, TimeUnit.SECONDS)).isEqualTo(minimal());
        supervisor.reload();
        await().atMost(Duration.ofSeconds(10)).until(() -> sink.attempts() >= 6);
        supervisor.stop(Duration.ofSeconds(10));
        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(0);

        assertThat(attemptsAtTheStep).containsExactly(3);
    }

    @Test
    void aOneshotRunEndsWithoutTheStepAfterTheFirstPublishedPass() throws Exception {
        ScriptedSink sink = new ScriptedSink(0);
        AtomicInteger steps = new AtomicInteger();
        DiscoverySettings oneshot = settings(false, true, Optional.of(Duration.ofSeconds(60)));
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(
                new LabelingPass(missingDriver(), s -> sink, CLOCK), new PassStatus(), () -> oneshot, CLOCK, oneshot,
                steps::incrementAndGet);

        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(0);
        assertThat(sink.published()).containsExactly(minimal());
        assertThat(steps).hasValue(0);
    }

    @Test
    void sighupReloadsAndRelabelsAtOnceEvenWithAnInfiniteInterval() throws Exception {
        ScriptedSink sink = new ScriptedSink(0);
        AtomicInteger reloads = new AtomicInteger();
        LabelingPass.NvmlOpener opener = missingDriver();
        TestSettings.Discovery builder = builder(false, false, Optional.empty()).timing(false, Optional.empty(),
                new Backoff.Policy(Duration.ofHours(1), Duration.ofHours(1)));
        DiscoverySettings infinite = builder.build();
        DiscoverySettings withoutTimestamp = builder.labels(TestSettings.withoutTimestamp(infinite.labels())).build();
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(
                new LabelingPass(opener, s -> sink, CLOCK), new PassStatus(),
                () -> {
                    reloads.incrementAndGet();
                    return withoutTimestamp;
                }, CLOCK, infinite);
        assertThat(sink.published().poll(10, TimeUnit.SECONDS)).isEqualTo(minimal());

        supervisor.reload();

        // the reloaded configuration drops the timestamp
        assertThat(sink.published().poll(10, TimeUnit.SECONDS)).isEqualTo(Labels.builder().build());
        assertThat(reloads).hasValue(1);
        supervisor.stop(Duration.ofSeconds(10));
        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(0);
    }

    @Test
    void aBadReloadKeepsTheConfigurationInUse() throws Exception {
        ScriptedSink sink = new ScriptedSink(0);
        DiscoverySettings infinite = builder(false, false, Optional.empty()).timing(false, Optional.empty(),
                new Backoff.Policy(Duration.ofHours(1), Duration.ofHours(1))).build();
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(
                new LabelingPass(missingDriver(), s -> sink, CLOCK), new PassStatus(),
                () -> {
                    throw InvalidConfigException.of("flags.migStrategy", "dual", "must be one of none, single, mixed");
                }, CLOCK, infinite);
        assertThat(sink.published().poll(10, TimeUnit.SECONDS)).isNotNull();

        supervisor.reload();

        assertThat(sink.published().poll(10, TimeUnit.SECONDS)).isEqualTo(minimal());
        supervisor.stop(Duration.ofSeconds(10));
        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(0);
    }

    @Test
    void oneshotWritesTheFeatureFileOnceAndLeavesIt() throws Exception {
        Path file = Files.createDirectory(folder.resolve("features.d")).resolve("gfd");
        DiscoverySettings oneshot = builder(false, true, Optional.of(Duration.ofSeconds(60))).outputFile(file)
                .sink(dev.kgpu.discovery.settings.LabelSinkKind.FILE).build();
        LabelingPass pass = new LabelingPass(missingDriver(),
                s -> new dev.kgpu.discovery.publish.FeatureFileSink(s.outputFile(), s.removeOutputFileOnExit()), CLOCK);
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(pass, new PassStatus(),
                () -> oneshot, CLOCK, oneshot);

        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(0);
        assertThat(Files.readString(file)).isEqualTo(minimal().toFeatureFile());
    }

    @Test
    void anErrorInAPassEndsTheRunWithExitCodeOneNeverZero() throws Exception {
        LabelingPass.NvmlOpener exhausted = () -> {
            throw new OutOfMemoryError("Java heap space (thrown by the test)");
        };
        DiscoverySettings oneshot = settings(false, true, Optional.of(Duration.ofSeconds(60)));
        PassStatus status = new PassStatus();
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor = DiscoveryHandler.start(
                new LabelingPass(exhausted, s -> new ScriptedSink(0), CLOCK), status, () -> oneshot, CLOCK, oneshot);

        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).hasValue(1);
        assertThat(status.current().ready()).isFalse();
        assertThat(status.current().detail()).contains("OutOfMemoryError");
    }
}
