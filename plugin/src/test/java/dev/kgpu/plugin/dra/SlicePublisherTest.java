package dev.kgpu.plugin.dra;

import dev.kgpu.agent.Backoff;
import dev.kgpu.plugin.testing.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The publisher syncs a pool it published again when told the API server's slices may differ: on {@link
 * SlicePublisher#resync}, on a watch event, and every resync period when nothing can watch.
 */
class SlicePublisherTest {

    static final Duration WAIT = Duration.ofSeconds(10);
    static final ResourcePool POOL = new ResourcePool(DraNames.DRIVER, "node-1", "node-1", List.of());

    /** An API server's slices in memory: a sync makes them the pool's; {@link #wipe} is the kubelet's DeleteCollection. */
    static final class Slices implements ResourceSliceStore {
        final AtomicReference<ResourcePool> held = new AtomicReference<>();
        final AtomicInteger syncs = new AtomicInteger();
        final AtomicInteger writes = new AtomicInteger();
        final AtomicReference<Runnable> watcher = new AtomicReference<>();
        final boolean watchable;

        Slices(boolean watchable) {
            this.watchable = watchable;
        }

        @Override
        public Published sync(ResourcePool pool) {
            syncs.incrementAndGet();
            boolean changed = !pool.equals(held.getAndSet(pool));
            if (changed) {
                writes.incrementAndGet();
            }
            return new Published(1, 1, changed);
        }

        @Override
        public Watch watch(String driver, String nodeName, Runnable changed) {
            if (!watchable) {
                return Watch.none("watch forbidden");
            }
            watcher.set(changed);
            return new Watch() {
                @Override
                public Optional<String> problem() {
                    return Optional.empty();
                }

                @Override
                public void close() {
                    watcher.set(null);
                }
            };
        }

        void wipe() {
            held.set(null);
            Runnable told = watcher.get();
            if (told != null) {
                told.run();
            }
        }
    }

    static SlicePublisher publisher(Slices slices, Duration resyncPeriod) {
        return new SlicePublisher(slices, DraNames.DRIVER, "node-1", resyncPeriod,
                new Backoff.Policy(Duration.ofMillis(10), Duration.ofMillis(100)), DraMetrics.NONE);
    }

    @Test
    void aWipeTheWatchReportsIsRepublished() {
        Slices slices = new Slices(true);
        try (SlicePublisher publisher = publisher(slices, Duration.ofSeconds(30))) {
            publisher.publish(POOL);
            Await.until(() -> POOL.equals(slices.held.get()), WAIT, "published");

            slices.wipe();

            Await.until(() -> POOL.equals(slices.held.get()), WAIT, "republished after the wipe");
            assertThat(slices.writes.get()).isEqualTo(2);
        }
    }

    @Test
    void aResyncSyncsAPublishedPoolAgainAndAnUnchangedOneWritesNothing() {
        Slices slices = new Slices(false);
        try (SlicePublisher publisher = publisher(slices, Duration.ofSeconds(30))) {
            publisher.publish(POOL);
            Await.until(() -> POOL.equals(slices.held.get()), WAIT, "published");
            int before = slices.syncs.get();

            publisher.resync("the kubelet registered the driver");
            Await.until(() -> slices.syncs.get() > before, WAIT, "synced again");
            assertThat(slices.writes.get()).as("nothing differed").isEqualTo(1);

            slices.held.set(null);
            publisher.resync("the kubelet registered the driver");
            Await.until(() -> POOL.equals(slices.held.get()), WAIT, "republished");
        }
    }

    @Test
    void withoutAWatchTheSlicesAreComparedEveryResyncPeriod() {
        Slices slices = new Slices(false);
        try (SlicePublisher publisher = publisher(slices, Duration.ofMillis(200))) {
            publisher.publish(POOL);
            Await.until(() -> POOL.equals(slices.held.get()), WAIT, "published");

            slices.wipe();

            Await.until(() -> POOL.equals(slices.held.get()), WAIT, "republished by the periodic comparison");
        }
    }
}
