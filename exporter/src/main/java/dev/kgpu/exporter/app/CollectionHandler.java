package dev.kgpu.exporter.app;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.OncePerCause;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.agent.Supervisor.Control;
import dev.kgpu.agent.Supervisor.Ending;
import dev.kgpu.agent.Supervisor.ReloadOutcome;
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
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The exporter's lifecycle, run by the agent kit's {@link Supervisor} on its one thread
 * ({@value #THREAD}). It opens NVML, retrying with backoff while NVML is not there (the exporter stays up, not
 * ready); collects at each interval and publishes the snapshot; takes NVML's health events (recording XIDs) and
 * restarts the health watch when it fails; and on SIGHUP collects the counters the file names now (a bad file keeps
 * the running counters: the engine says so). Each change of state (NVML missing, found; collections failing,
 * succeeding) is logged once. Nothing else starts or stops work.
 *
 * <p>{@link #stuckFor} tells liveness how long the step in progress (an NVML open, a collection, starting
 * the health watch) has been running, so a hung NVML call turns liveness down and the kubelet restarts
 * the pod.
 */
final class CollectionHandler implements Supervisor.Handler<CounterSet, CollectionHandler.Event> {

    static final String THREAD = "exporter-supervisor";
    private static final System.Logger LOG = System.getLogger(CollectionHandler.class.getName());
    static final Duration HEALTH_RESTART_DELAY = Duration.ofSeconds(10);
    /** Between tries to open NVML: 1 s doubling up to 30 s. */
    static final Backoff.Policy NVML_RETRY = new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(30));

    /** NVML and what is built on it; opened and closed by the handler, used on the supervisor thread only. */
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

    /** What the handler reacts to. */
    sealed interface Event {
        /** One of NVML's health events, from its watch thread. */
        record Health(HealthEvent event) implements Event {
        }

        /** A step whose time has come (its timer fired). */
        enum Due implements Event { OPEN_NVML, COLLECT, WATCH_HEALTH }
    }

    private final Function<CounterSet, Node> open;
    private final Consumer<Snapshot> publish;
    private final Duration interval;
    private final XidHistory xids;
    private final LongConsumer collectionNanos;
    private final Runnable openFailed;
    private final Backoff nvmlRetry = new Backoff(NVML_RETRY);
    private final OncePerCause nvmlProblem = new OncePerCause(LOG, "NVML is available again; collecting");
    private final OncePerCause collectionProblem = new OncePerCause(LOG, "collections succeed again");
    private Control<Event> control;
    private CounterSet counters;
    private Node node;
    private HealthMonitor health;
    private Instant collectAt;
    private Supervisor.Timer nextCollection;
    private Supervisor.Timer healthRestart;
    private volatile Instant lastSuccess;
    private volatile Instant busySince;

    /**
     * @param open            opens NVML and builds the collection of the counters on it; throws when NVML
     *                        is not available
     * @param publish         hands the snapshot to the scrapes
     * @param interval        time between collections
     * @param xids            where XID events go
     * @param collectionNanos records how long a collection took
     * @param openFailed      counts a failed NVML open
     */
    CollectionHandler(Function<CounterSet, Node> open, Consumer<Snapshot> publish, Duration interval, XidHistory xids,
                      LongConsumer collectionNanos, Runnable openFailed) {
        this.open = Objects.requireNonNull(open, "open");
        this.publish = Objects.requireNonNull(publish, "publish");
        this.interval = Objects.requireNonNull(interval, "interval");
        this.xids = Objects.requireNonNull(xids, "xids");
        this.collectionNanos = Objects.requireNonNull(collectionNanos, "collectionNanos");
        this.openFailed = Objects.requireNonNull(openFailed, "openFailed");
    }

    /**
     * Opens NVML and collects {@code counters} once before it returns (so the first scrape has series); when NVML
     * cannot be opened, the supervisor keeps trying.
     *
     * @param rereadCounters reads the counters file again (SIGHUP); throws {@code InvalidConfigException}
     * @param clock          timestamps of collections and of the step in progress
     */
    static Supervisor<CounterSet, Event> start(CollectionHandler handler, CounterSet counters,
                                               Supplier<CounterSet> rereadCounters, InstantSource clock) {
        return Supervisor.builder(THREAD, handler)
                .reloads("the running counters", rereadCounters)
                .clock(clock)
                .start(counters);
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

    @Override
    public void start(CounterSet initial, Control<Event> control) {
        this.control = control;
        this.counters = initial;
        tryOpen();
    }

    @Override
    public void on(Event event) {
        switch (event) {
            case Event.Due.OPEN_NVML -> tryOpen();
            case Event.Due.COLLECT -> collect();
            case Event.Due.WATCH_HEALTH -> {
                healthRestart = null;
                if (node != null) {
                    startHealthWatch();
                }
            }
            case Event.Health(HealthEvent.XidError xid) -> xids.record(xid.gpuUuid(), xid.xid(), xid.observedAt());
            case Event.Health(HealthEvent.EccError ecc) -> {
            }
            case Event.Health(HealthEvent.MonitorFailure failure) -> {
                LOG.log(Level.WARNING, "NVML''s health-event watch stopped ({0}); restarting it in {1,number,#} s",
                        failure.cause().getMessage(), HEALTH_RESTART_DELAY.toSeconds());
                closeHealth();
                restartHealthWatchLater();
            }
        }
    }

    @Override
    public ReloadOutcome reload(CounterSet reloaded) {
        counters = reloaded;
        LOG.log(Level.INFO, "SIGHUP: collecting the {0,number,#} rows of {1}", reloaded.rows(), reloaded.source());
        if (node != null) {
            node.use(reloaded);
            collect();
        }
        return ReloadOutcome.APPLIED;
    }

    /**
     * Nothing outside the process to undo (the HTTP server is Quarkus'), but NVML is closed here, before a process
     * exiting on SIGTERM may exit: that exit does not wait for {@link #release()}, and it runs the NVML library's
     * destructors, which must find no thread in {@code nvmlEventSetWait_v2} (the plugin's native executable crashed
     * so). No collection runs once this returns.
     */
    @Override
    public void stop(Ending why) {
        release();
    }

    /**
     * Closes the health watch and NVML ({@link #stop} already did). Closing the watch waits for its thread to leave
     * {@code nvmlEventSetWait} (at most one wait of NVML's, 50 ms).
     */
    @Override
    public void release() {
        closeHealth();
        if (node != null) {
            node.close();
            node = null;
        }
    }

    private void tryOpen() {
        busySince = control.now();
        try {
            node = open.apply(counters);
        } catch (RuntimeException e) {
            openFailed.run();
            Duration wait = nvmlRetry.next();
            control.after(wait, Event.Due.OPEN_NVML);
            String problem = oneLine(e);
            nvmlProblem.occurred(Level.ERROR, problem, "NVML is not available ({0}); not ready, retrying with backoff up"
                    + " to {1,number,#} s", problem, NVML_RETRY.max().toSeconds());
            return;
        } finally {
            busySince = null;
        }
        nvmlProblem.cleared();
        nvmlRetry.reset();
        startHealthWatch();
        collect();
    }

    private void collect() {
        if (nextCollection != null) {
            nextCollection.cancel();
        }
        long start = System.nanoTime();
        busySince = control.now();
        try {
            Snapshot snapshot = node.collect();
            publish.accept(snapshot);
            lastSuccess = control.now();
            collectionProblem.cleared();
        } catch (RuntimeException e) {
            String problem = oneLine(e);
            collectionProblem.occurred(Level.ERROR, problem, "collection failed ({0}); /metrics keeps serving the"
                    + " previous snapshot, not ready until a collection succeeds", problem);
        } finally {
            busySince = null;
            collectionNanos.accept(System.nanoTime() - start);
        }
        Instant after = control.now();
        collectAt = collectAt == null || !collectAt.plus(interval).isAfter(after) ? after.plus(interval)
                : collectAt.plus(interval);
        nextCollection = control.after(Duration.between(after, collectAt), Event.Due.COLLECT);
    }

    private void startHealthWatch() {
        busySince = control.now();
        try {
            health = node.watchHealth(event -> control.post(new Event.Health(event)));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not watch NVML''s health events ({0}); XID series stay at their last value,"
                    + " retrying in {1,number,#} s", e.getMessage(), HEALTH_RESTART_DELAY.toSeconds());
            restartHealthWatchLater();
        } finally {
            busySince = null;
        }
    }

    private void restartHealthWatchLater() {
        if (healthRestart == null) {
            healthRestart = control.after(HEALTH_RESTART_DELAY, Event.Due.WATCH_HEALTH);
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
}
