package dev.kgpu.exporter.app;

import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.exposition.Snapshot;
import dev.kgpu.nvml.HealthEvent;
import dev.kgpu.nvml.HealthMonitor;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The exporter's one supervisor thread ({@code exporter-supervisor}): it collects at each interval and
 * publishes the snapshot, takes NVML's health events from one queue (recording XIDs), and restarts the
 * health watch when it fails. Nothing else starts or stops work.
 */
final class ExporterSupervisor implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ExporterSupervisor.class.getName());
    static final Duration HEALTH_RESTART_DELAY = Duration.ofSeconds(10);

    /** What the supervisor reacts to. */
    sealed interface Event {
        record Health(HealthEvent event) implements Event {
        }

        record Stop() implements Event {
        }
    }

    private final Supplier<Snapshot> cycle;
    private final Consumer<Snapshot> publish;
    private final Duration interval;
    private final InstantSource clock;
    private final XidHistory xids;
    private final Function<Consumer<HealthEvent>, HealthMonitor> startHealth;
    private final LongConsumer collectionNanos;
    private final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private HealthMonitor health;
    private Instant restartHealthAt;
    private volatile Instant lastSuccess;
    private volatile boolean running;

    /**
     * @param cycle           one collection (runs on the supervisor thread)
     * @param publish         hands the snapshot to the scrapes
     * @param interval        time between collections
     * @param xids            where XID events go
     * @param startHealth     starts NVML's health watch with a listener
     * @param collectionNanos records how long a collection took
     */
    ExporterSupervisor(Supplier<Snapshot> cycle, Consumer<Snapshot> publish, Duration interval, InstantSource clock,
                       XidHistory xids, Function<Consumer<HealthEvent>, HealthMonitor> startHealth,
                       LongConsumer collectionNanos) {
        this.cycle = cycle;
        this.publish = publish;
        this.interval = interval;
        this.clock = clock;
        this.xids = xids;
        this.startHealth = startHealth;
        this.collectionNanos = collectionNanos;
        this.thread = Thread.ofPlatform().name("exporter-supervisor").daemon(true).unstarted(this::loop);
    }

    /** Collects once on the caller's thread (so the first scrape has series), then starts the thread. */
    void start() {
        startHealthWatch();
        collect();
        running = true;
        thread.start();
    }

    /** When the last collection succeeded, or null before the first. */
    Instant lastSuccess() {
        return lastSuccess;
    }

    boolean running() {
        return running && thread.isAlive();
    }

    private void loop() {
        Instant next = clock.instant().plus(interval);
        try {
            while (true) {
                Instant now = clock.instant();
                if (!now.isBefore(next)) {
                    collect();
                    next = next.plus(interval);
                    Instant after = clock.instant();
                    if (!next.isAfter(after)) {
                        next = after.plus(interval);
                    }
                    continue;
                }
                if (restartHealthAt != null && !now.isBefore(restartHealthAt)) {
                    restartHealthAt = null;
                    startHealthWatch();
                }
                Instant wake = restartHealthAt != null && restartHealthAt.isBefore(next) ? restartHealthAt : next;
                long waitMs = Math.max(1, Duration.between(now, wake).toMillis());
                Event event = queue.poll(waitMs, TimeUnit.MILLISECONDS);
                switch (event) {
                    case null -> {
                    }
                    case Event.Stop stop -> {
                        return;
                    }
                    case Event.Health(HealthEvent.XidError xid) ->
                            xids.record(xid.gpuUuid(), xid.xid(), xid.observedAt());
                    case Event.Health(HealthEvent.EccError ecc) -> {
                    }
                    case Event.Health(HealthEvent.MonitorFailure failure) -> {
                        LOG.log(Level.WARNING, () -> String.format(
                                "NVML's health-event watch stopped (%s); restarting it in %d s",
                                failure.cause().getMessage(), HEALTH_RESTART_DELAY.toSeconds()));
                        closeHealth();
                        restartHealthAt = clock.instant().plus(HEALTH_RESTART_DELAY);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            running = false;
        }
    }

    private void collect() {
        long start = System.nanoTime();
        try {
            Snapshot snapshot = cycle.get();
            publish.accept(snapshot);
            lastSuccess = clock.instant();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "collection failed; /metrics keeps serving the previous snapshot", e);
        } finally {
            collectionNanos.accept(System.nanoTime() - start);
        }
    }

    private void startHealthWatch() {
        try {
            health = startHealth.apply(event -> queue.offer(new Event.Health(event)));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> String.format("could not watch NVML's health events (%s);"
                            + " XID series stay at their last value, retrying in %d s",
                    e.getMessage(), HEALTH_RESTART_DELAY.toSeconds()));
            restartHealthAt = clock.instant().plus(HEALTH_RESTART_DELAY);
        }
    }

    private void closeHealth() {
        if (health != null) {
            health.close();
            health = null;
        }
    }

    @Override
    public void close() {
        queue.offer(new Event.Stop());
        try {
            thread.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeHealth();
    }
}
