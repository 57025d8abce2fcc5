package dev.kgpu.exporter.app;

import dev.kgpu.agent.Supervisor;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.counters.CountersFile;
import dev.kgpu.exporter.exposition.Snapshot;
import dev.kgpu.exporter.testing.Await;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.HealthEvent;
import dev.kgpu.nvml.HealthMonitor;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exporter's collection on the agent kit's supervisor, on a fake node (no NVML): retrying NVML with backoff until it opens, liveness of a hung
 * collection, and SIGHUP's counters reload keeping the running counters when the new file is bad.
 */
class CollectionHandlerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final CounterSet TWO = CountersFile.parse("two.csv", """
            DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).
            DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
            """);
    private static final CounterSet ONE = CountersFile.parse("one.csv", """
            DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
            """);

    /** A node whose collections return at once, or wait for {@link #release} once {@link #hang} is set. */
    static final class FakeNode implements CollectionHandler.Node {
        final List<CounterSet> used = new CopyOnWriteArrayList<>();
        final AtomicInteger collections = new AtomicInteger();
        final AtomicBoolean hang = new AtomicBoolean();
        final AtomicInteger hanging = new AtomicInteger();
        final CountDownLatch release = new CountDownLatch(1);
        /** Runs when NVML closes, on the closing thread. */
        volatile Runnable onClose = () -> { };

        FakeNode(CounterSet counters) {
            used.add(counters);
        }

        @Override
        public Snapshot collect() {
            collections.incrementAndGet();
            if (hang.get()) {
                hanging.incrementAndGet();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Snapshot.empty();
        }

        @Override
        public HealthMonitor watchHealth(Consumer<HealthEvent> listener) {
            return new HealthMonitor() {
                @Override
                public List<GpuDevice> unmonitoredDevices() {
                    return List.of();
                }

                @Override
                public boolean running() {
                    return true;
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public void use(CounterSet counters) {
            used.add(counters);
        }

        @Override
        public void close() {
            onClose.run();
        }
    }

    private static CollectionHandler handler(Function<CounterSet, CollectionHandler.Node> open, Duration interval,
                                             Runnable openFailed) {
        return new CollectionHandler(open, snapshot -> { }, interval, new XidHistory(Duration.ofMinutes(1)), nanos -> { },
                openFailed);
    }

    /** Opens a {@link FakeNode} for the counters it is given, and keeps the last one opened in {@code node}. */
    private static Function<CounterSet, CollectionHandler.Node> opening(AtomicReference<FakeNode> node) {
        return counters -> {
            node.set(new FakeNode(counters));
            return node.get();
        };
    }

    /** Starts {@code handler} collecting {@link #TWO}, as the exporter does; {@code reread} is SIGHUP's counters file. */
    private static Supervisor<CounterSet, CollectionHandler.Event> start(CollectionHandler handler,
                                                                         Supplier<CounterSet> reread) {
        return CollectionHandler.start(handler, TWO, reread, Clock.systemUTC());
    }

    @Test
    void withoutNvmlItStaysUpAndRetriesUntilNvmlOpens() {
        AtomicInteger failures = new AtomicInteger();
        AtomicBoolean driverLoaded = new AtomicBoolean();
        CollectionHandler handler = handler(counters -> {
            if (!driverLoaded.get()) {
                throw new IllegalStateException("could not load libnvidia-ml.so.1");
            }
            return new FakeNode(counters);
        }, Duration.ofMillis(100), failures::incrementAndGet);
        Supervisor<CounterSet, CollectionHandler.Event> supervisor = start(handler, () -> TWO);
        try {
            assertThat(handler.lastSuccess()).isNull();
            assertThat(supervisor.running()).isTrue();
            Await.until("a second try to open NVML (after 1 s of backoff)", WAIT, () -> failures.get() >= 2);
            assertThat(handler.stuckFor(Instant.now())).isLessThan(Duration.ofSeconds(1));

            driverLoaded.set(true);
            Await.until("a collection once NVML opens (within the 2 s backoff)", WAIT,
                    () -> handler.lastSuccess() != null);
        } finally {
            supervisor.stop(WAIT);
        }
    }

    @Test
    void aHungCollectionIsSeenAsStuck() {
        AtomicReference<FakeNode> node = new AtomicReference<>();
        CollectionHandler handler = handler(opening(node), Duration.ofMillis(100), () -> { });
        Supervisor<CounterSet, CollectionHandler.Event> supervisor = start(handler, () -> TWO);
        try {
            assertThat(handler.lastSuccess()).isNotNull();
            node.get().hang.set(true);

            Await.until("a collection that hangs", WAIT, () -> node.get().hanging.get() == 1);
            Instant now = Instant.now();
            Instant stuckSince = now.minus(handler.stuckFor(now));
            Duration limit = Exporter.stuckAfter(Duration.ofMillis(100));
            assertThat(limit).isEqualTo(Duration.ofSeconds(30));
            assertThat(handler.stuckFor(stuckSince.plus(limit).plusSeconds(1))).isGreaterThan(limit);
            assertThat(Exporter.stuckAfter(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(150));

            node.get().release.countDown();
            Await.until("the collection to finish", WAIT, () -> handler.stuckFor(Instant.now()).isZero());
        } finally {
            supervisor.stop(WAIT);
        }
    }

    @Test
    void sighupCollectsTheNewCountersAndKeepsTheRunningOnesWhenTheFileIsBad() {
        AtomicReference<FakeNode> node = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        // the first SIGHUP finds a bad file, the second a good one
        Supplier<CounterSet> file = () -> {
            if (reads.incrementAndGet() == 1) {
                throw InvalidConfigException.of("counters.csv:1", "DCGM_FI_NOPE, gauge, x", "names no DCGM field");
            }
            return ONE;
        };
        CollectionHandler handler = handler(opening(node), Duration.ofHours(1), () -> { });
        Supervisor<CounterSet, CollectionHandler.Event> supervisor = start(handler, file);
        try {
            int before = node.get().collections.get();

            supervisor.reload();
            Await.until("the first reload", WAIT, () -> reads.get() == 1);
            assertThat(node.get().used).containsExactly(TWO);
            supervisor.reload();

            Await.until("the second reload to reach the node", WAIT, () -> node.get().used.size() == 2);
            assertThat(node.get().used).containsExactly(TWO, ONE);
            // a reload collects at once, not at the next (hourly) interval
            Await.until("a collection with the new counters", WAIT, () -> node.get().collections.get() > before);
        } finally {
            supervisor.stop(WAIT);
        }
    }

    /** SIGTERM: the process exits once the exit status is known; NVML must be closed by then (its destructors run). */
    @Test
    void sigtermClosesNvmlBeforeTheExitStatusIsKnown() {
        AtomicReference<FakeNode> node = new AtomicReference<>();
        CollectionHandler handler = handler(opening(node), Duration.ofMillis(100), () -> { });
        Supervisor<CounterSet, CollectionHandler.Event> supervisor = start(handler, () -> TWO);
        AtomicReference<Boolean> closedAfterExit = new AtomicReference<>();
        try {
            Await.until("NVML open", WAIT, () -> node.get() != null);
            node.get().onClose = () -> closedAfterExit.set(supervisor.awaitExit(Duration.ZERO).isPresent());

            supervisor.stopForExit();
            supervisor.awaitExit();

            assertThat(closedAfterExit).hasValue(false);
        } finally {
            supervisor.stop(WAIT);
        }
    }
}
