package dev.kgpu.exporter.app;

import dev.kgpu.agent.Backoff;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.exposition.Snapshot;
import dev.kgpu.nvml.HealthEvent;
import dev.kgpu.nvml.HealthMonitor;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The exporter's one supervisor thread ({@code exporter-supervisor}). It opens NVML, retrying with backoff
 * while NVML is not there (the exporter stays up, not ready); collects at each interval and publishes the
 * snapshot; takes NVML's health events from one queue (recording XIDs) and restarts the health watch when it
 * fails; and on SIGHUP re-reads the counters file, keeping the running counters when the new file is bad.
 * Each change of state (NVML missing, found; collections failing, succeeding) is logged once. Nothing else
 * starts or stops work.
 *
 * <p>{@link #stuckFor} tells liveness how long the step in progress (an NVML open, a collection, starting
 * the health watch) has been running, so a hung NVML call turns liveness down and the kubelet restarts
 * the pod.
 */
final class ExporterSupervisor implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ExporterSupervisor.class.getName());
    static final Duration HEALTH_RESTART_DELAY = Duration.ofSeconds(10);
    /** Between tries to open NVML: 1 s doubling up to 30 s. */
    static final Backoff.Policy NVML_RETRY = new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(30));

    /** NVML and what is built on it; opened and closed by the supervisor, used on its thread only. */
    interface Node extends AutoCloseable {
        /** One collection, rendered. */
        Snapshot collect();

        /** Starts NVML's health watch. */
        HealthMonitor watchHealth(Consumer<HealthEvent> listener);

        /** Collects {@code counters} from now on. */
        void use(CounterSet counters);

        @Override
        void close();
    }

    /** What the supervisor reacts to. */
    sealed interface Event {
        record Health(HealthEvent event) implements Event {
        }

        /** SIGHUP: read the counters file again. */
        record Reload() implements Event {
        }

        record Stop() implements Event {
        }
    }

    private final Function<CounterSet, Node> open;
    private final Supplier<CounterSet> rereadCounters;
    private final Consumer<Snapshot> publish;
    private final Duration interval;
    private final InstantSource clock;
    private final XidHistory xids;
    private final LongConsumer collectionNanos;
    private final Runnable openFailed;
    private final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final Backoff nvmlRetry = new Backoff(NVML_RETRY);
    private CounterSet counters;
    private Node node;
    private HealthMonitor health;
    private Instant restartHealthAt;
    private Instant openAt;
    private Instant collectAt;
    private String nvmlProblem;
    private String collectionProblem;
    private volatile Instant lastSuccess;
    private volatile Instant busySince;
    private volatile boolean running;

    /**
     * @param open            opens NVML and builds the collection of {@code counters} on it; throws when NVML
     *                        is not available
     * @param counters        the counters to collect
     * @param rereadCounters  reads the counters file again (SIGHUP); throws {@link InvalidConfigException}
     * @param publish         hands the snapshot to the scrapes
     * @param interval        time between collections
     * @param xids            where XID events go
     * @param collectionNanos records how long a collection took
     * @param openFailed      counts a failed NVML open
     */
    ExporterSupervisor(Function<CounterSet, Node> open, CounterSet counters, Supplier<CounterSet> rereadCounters,
                       Consumer<Snapshot> publish, Duration interval, InstantSource clock, XidHistory xids,
                       LongConsumer collectionNanos, Runnable openFailed) {
        this.open = open;
        this.counters = Objects.requireNonNull(counters, "counters");
        this.rereadCounters = rereadCounters;
        this.publish = publish;
        this.interval = interval;
        this.clock = clock;
        this.xids = xids;
        this.collectionNanos = collectionNanos;
        this.openFailed = openFailed;
        this.thread = Thread.ofPlatform().name("exporter-supervisor").daemon(true).unstarted(this::loop);
    }

    /**
     * Opens NVML and collects once on the caller's thread (so the first scrape has series), then starts the
     * thread; when NVML cannot be opened, the thread keeps trying.
     */
    void start() {
        running = true;
        tryOpen();
        thread.start();
    }

    /** Asks the supervisor to read the counters file again (from the SIGHUP relay). */
    void reload() {
        queue.offer(new Event.Reload());
    }

    /** When the last collection succeeded, or null before the first. */
    Instant lastSuccess() {
        return lastSuccess;
    }

    /** How long the step in progress has been running at {@code now}; zero between steps. */
    Duration stuckFor(Instant now) {
        Instant since = busySince;
        return since == null || now.isBefore(since) ? Duration.ZERO : Duration.between(since, now);
    }

    boolean running() {
        return running && thread.isAlive();
    }

    private void loop() {
        try {
            while (true) {
                Instant now = clock.instant();
                if (node == null && !now.isBefore(openAt)) {
                    tryOpen();
                    continue;
                }
                if (node != null && !now.isBefore(collectAt)) {
                    collect();
                    continue;
                }
                if (node != null && restartHealthAt != null && !now.isBefore(restartHealthAt)) {
                    restartHealthAt = null;
                    startHealthWatch();
                }
                Instant wake = node == null ? openAt : collectAt;
                if (restartHealthAt != null && restartHealthAt.isBefore(wake)) {
                    wake = restartHealthAt;
                }
                long waitMs = Math.max(1, Duration.between(now, wake).toMillis());
                Event event = queue.poll(waitMs, TimeUnit.MILLISECONDS);
                switch (event) {
                    case null -> {
                    }
                    case Event.Stop stop -> {
                        return;
                    }
                    case Event.Reload reload -> reloadCounters();
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

    private void tryOpen() {
        busySince = clock.instant();
        try {
            node = open.apply(counters);
        } catch (RuntimeException e) {
            openFailed.run();
            Duration wait = nvmlRetry.next();
            openAt = clock.instant().plus(wait);
            String problem = oneLine(e);
            if (!problem.equals(nvmlProblem)) {
                nvmlProblem = problem;
                LOG.log(Level.ERROR, () -> String.format("NVML is not available (%s); not ready, retrying with"
                        + " backoff up to %d s", problem, NVML_RETRY.max().toSeconds()));
            }
            return;
        } finally {
            busySince = null;
        }
        if (nvmlProblem != null) {
            LOG.log(Level.INFO, "NVML is available again; collecting");
            nvmlProblem = null;
        }
        nvmlRetry.reset();
        startHealthWatch();
        collect();
    }

    private void collect() {
        long start = System.nanoTime();
        busySince = clock.instant();
        try {
            Snapshot snapshot = node.collect();
            publish.accept(snapshot);
            lastSuccess = clock.instant();
            if (collectionProblem != null) {
                LOG.log(Level.INFO, "collections succeed again");
                collectionProblem = null;
            }
        } catch (RuntimeException e) {
            String problem = oneLine(e);
            if (!problem.equals(collectionProblem)) {
                collectionProblem = problem;
                LOG.log(Level.ERROR, () -> String.format("collection failed (%s); /metrics keeps serving the previous"
                        + " snapshot, not ready until a collection succeeds", problem));
            }
        } finally {
            busySince = null;
            collectionNanos.accept(System.nanoTime() - start);
        }
        Instant after = clock.instant();
        collectAt = collectAt == null || !collectAt.plus(interval).isAfter(after) ? after.plus(interval)
                : collectAt.plus(interval);
    }

    private void reloadCounters() {
        CounterSet reloaded;
        try {
            reloaded = rereadCounters.get();
        } catch (InvalidConfigException e) {
            LOG.log(Level.ERROR, () -> "SIGHUP: keeping the running counters: " + e.getMessage());
            return;
        }
        counters = reloaded;
        LOG.log(Level.INFO, () -> String.format("SIGHUP: collecting the %d rows of %s", reloaded.rows(),
                reloaded.source()));
        if (node != null) {
            node.use(reloaded);
            collect();
        }
    }

    private void startHealthWatch() {
        busySince = clock.instant();
        try {
            health = node.watchHealth(event -> queue.offer(new Event.Health(event)));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> String.format("could not watch NVML's health events (%s);"
                            + " XID series stay at their last value, retrying in %d s",
                    e.getMessage(), HEALTH_RESTART_DELAY.toSeconds()));
            restartHealthAt = clock.instant().plus(HEALTH_RESTART_DELAY);
        } finally {
            busySince = null;
        }
    }

    private void closeHealth() {
        if (health != null) {
            health.close();
            health = null;
        }
    }

    /** The exception's first line, without its stack. */
    private static String oneLine(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.lines().findFirst().orElse(message);
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
        if (node != null && !thread.isAlive()) {
            node.close();
            node = null;
        }
    }
}
