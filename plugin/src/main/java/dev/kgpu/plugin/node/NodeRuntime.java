package dev.kgpu.plugin.node;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.OncePerCause;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.health.HealthTracker;
import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.health.HealthWatch;
import dev.kgpu.plugin.node.NodeStatus.Problem;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The plugin on a node: it opens the device source (NVML), reads the inventory, watches the devices' health and
 * runs the kubelet front-ends over them ({@link FrontEnd}: the device plugin, the DRA driver, or both). It is the
 * agent kit's {@link Supervisor} handler: everything it does happens on the supervisor's one thread, in order, with
 * the front-ends' own events, which are tasks ({@link NodeContext}); the supervisor brings SIGHUP (the settings
 * loaded again) and the end.
 *
 * <p>Starting (again): read the inventory, let each front-end plan what it serves of it, watch the health of every
 * device planned, then serve each plan. If the devices cannot be read nothing is served (a node must not advertise
 * GPUs it cannot give out): with {@code failOnInitError} it asks to exit, otherwise it retries with backoff. A plan
 * that cannot be met asks to exit at start; on SIGHUP it keeps the running settings. Health changes need no event
 * here: the front-ends listen to the {@link HealthTracker} themselves.
 *
 * <p>Thread-safety: the {@link Supervisor.Handler} methods are called on the node's thread, by the supervisor;
 * {@link #status()} and {@link #checkHealthNow()} from any thread.
 *
 * @param <C> the plugin's settings, as the loader composes them
 */
public final class NodeRuntime<C extends NodeConfiguration> implements Supervisor.Handler<C, Runnable> {

    /** The supervisor's thread: the node's. */
    public static final String THREAD_NAME = "plugin-supervisor";
    /** What the running settings are called in the supervisor's SIGHUP lines. */
    public static final String RUNNING = "the running config";

    /** Retries of reading the devices and of the front-ends' serving and registering: 0.5 s doubling up to 30 s. */
    public static final Backoff.Policy RETRIES = new Backoff.Policy(Duration.ofMillis(500), Duration.ofSeconds(30));
    private static final System.Logger LOG = System.getLogger(NodeRuntime.class.getName());

    private final DeviceSource.Factory devices;
    private final AllocationLedger ledger;
    private final List<FrontEnd.Binding<C, ?>> frontEnds;
    private final InstantSource clock;
    private final NodeMetrics metrics;
    private final Backoff.Policy retries;

    private volatile boolean running;
    private volatile boolean devicesReadable;
    private volatile List<Problem> problems = List.of(new Problem.Starting());
    private volatile HealthWatch healthWatch;

    // confined to the node's thread
    private C settings;
    private Supervisor.Control<Runnable> control;
    private HealthTracker health;
    /** Written on the node's thread; read by {@link Context#computeModes} on the front-ends' threads. */
    private volatile DeviceSource source;
    private Retry devicesRetry;
    /** Why nothing is served, or null while the plans are served. */
    private Problem notServing = new Problem.Starting();
    private Optional<Problem.ReloadRejected> reloadRejected = Optional.empty();
    /** Why the devices could not be read, logged once per cause: a node without a driver for an hour is one line. */
    private final OncePerCause unreadable = new OncePerCause(LOG, "the devices can be read again");

    /**
     * @param devices   opens the device source (NVML)
     * @param ledger    who holds which GPU, shared by the front-ends ({@link AllocationLedger#none()} when only the device
     *                  plugin runs)
     * @param frontEnds the front-ends to run, each with where its settings are
     * @param clock     the health quiet period's clock
     * @param retries   the waits between retries
     */
    public NodeRuntime(DeviceSource.Factory devices, AllocationLedger ledger, List<FrontEnd.Binding<C, ?>> frontEnds,
                       InstantSource clock, NodeMetrics metrics, Backoff.Policy retries) {
        this.devices = Objects.requireNonNull(devices, "devices");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.frontEnds = List.copyOf(frontEnds);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.retries = Objects.requireNonNull(retries, "retries");
    }

    // ---------------------------------------------------------------------------------------------
    // the node's thread

    /** First thing on the node's thread: starts the front-ends; serving them is its first event. */
    @Override
    public void start(C loaded, Supervisor.Control<Runnable> nodeControl) {
        this.settings = Objects.requireNonNull(loaded, "loaded");
        this.control = Objects.requireNonNull(nodeControl, "nodeControl");
        NodeSettings node = loaded.node();
        health = new HealthTracker(node.health(), clock);
        health.addListener(this::healthChanged);
        healthWatch = new HealthWatch(health, node.health().watchesEvents(), node.healthCheckInterval());
        Context context = new Context();
        devicesRetry = context.retry(this::retryDevices);
        running = true;
        frontEnds.forEach(f -> f.frontEnd().start(context));
        // the first serve may wait on NVML and the kubelet: as an event, so that the supervisor is there to stop it
        control.post(() -> restart(loaded, false, "start"));
        publishStatus();
    }

    /** A task posted to the node's thread: a front-end's event or retry, or the node's own. */
    @Override
    public void on(Runnable task) {
        task.run();
        publishStatus();
    }

    /** SIGHUP brought settings that loaded fine: serve with them, or refuse them when a front-end cannot plan. */
    @Override
    public Supervisor.ReloadOutcome reload(C candidate) {
        candidate.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, w.toString()));
        LOG.log(System.Logger.Level.INFO, "SIGHUP: Running with config:\n{0}", candidate.description());
        Optional<String> refused = restart(candidate, true, "SIGHUP");
        if (refused.isPresent()) {
            return new Supervisor.ReloadOutcome.Rejected(refused.get());
        }
        reloadRejected = Optional.empty();
        publishStatus();
        return Supervisor.ReloadOutcome.APPLIED;
    }

    /** SIGHUP's settings could not be loaded, or were refused: the running ones stay; the status says why. */
    @Override
    public void reloadRejected(String reason) {
        reloadRejected = Optional.of(new Problem.ReloadRejected(reason));
        publishStatus();
    }

    /**
     * The end (SIGTERM, shutdown, or the node gave up): every front-end stops serving (sockets removed, CDI specs
     * cleaned up), then the health watch and the device source are closed. Closing NVML's event watch waits for its
     * thread to leave {@code nvmlEventSetWait} (at most one wait of NVML's, 50 ms). That happens here, before the
     * process may exit, and not in {@link #release()}, which a process exiting on SIGTERM does not wait for: the exit
     * runs the NVML library's destructors while the event thread still sleeps in {@code nvmlEventSetWait_v2}, and a
     * thread inside a library being torn down can crash the exiting process (seen with the mock NVML: a segfault
     * after "kgpu-plugin stopped"). Unlike Go's exit, which makes no libc exit and runs no destructors, a JVM's or a
     * native image's exit does.
     */
    @Override
    public void stop(Supervisor.Ending why) {
        LOG.log(System.Logger.Level.INFO, "stopping: removing the plugin's sockets");
        tellFrontEnds(new Problem.Stopped());
        running = false;
        publishStatus();
        release();
    }

    /** The health watch (its timer too) and the device source are closed; {@link #stop} already did it. */
    @Override
    public void release() {
        if (healthWatch != null) {
            healthWatch.close();
        }
        closeSource();
    }

    // ---------------------------------------------------------------------------------------------
    // any thread

    /** What the node and its front-ends have achieved so far. */
    public NodeStatus status() {
        return new NodeStatus(running, devicesReadable, problems, frontEnds.stream().map(f -> f.frontEnd().status()).toList());
    }

    /** Runs one health check now, on the calling thread (the health watch runs one every interval). */
    public HealthTracker.CheckResult checkHealthNow() {
        HealthWatch watch = healthWatch;
        return watch == null ? HealthTracker.CheckResult.NOTHING : watch.checkNow();
    }

    // ---------------------------------------------------------------------------------------------
    // the node's thread

    private void retryDevices() {
        if (notServing instanceof Problem.DevicesUnreadable) {
            restart(settings, false, "retry");
        }
    }

    /**
     * Reads the devices and plans every front-end with {@code candidate}, then serves the plans. Returns why a
     * reload's plan failed (the running plans and settings stay), or empty.
     */
    private Optional<String> restart(C candidate, boolean reloading, String why) {
        LOG.log(System.Logger.Level.INFO, "starting the plugin''s servers ({0})", why);
        boolean opened = false;
        NodeInventory inventory;
        try {
            if (source == null) {
                source = devices.open();
                opened = true;
            }
            inventory = source.inventory();
        } catch (DeviceSourceException e) {
            settings = candidate;
            devicesUnreadable(e.getMessage());
            return Optional.empty();
        }
        List<FrontEnd.Plan> plans = new ArrayList<>();
        try {
            for (FrontEnd.Binding<C, ?> frontEnd : frontEnds) {
                plans.add(frontEnd.plan(inventory, candidate));
            }
        } catch (UnservableException e) {
            if (reloading) {
                if (opened) {
                    closeSource();
                }
                return Optional.of(e.getMessage());
            }
            stopServing(new Problem.Unservable(e.getMessage()));
            control.exit(1, e.getMessage());
            return Optional.empty();
        }
        settings = candidate;
        unreadable.cleared();
        notServing = null;
        ledger.units(PhysicalUnits.of(inventory));
        devicesRetry.reset();
        serve(plans);
        return Optional.empty();
    }

    private void serve(List<FrontEnd.Plan> plans) {
        LinkedHashSet<PhysicalDevice> watched = new LinkedHashSet<>();
        plans.forEach(p -> watched.addAll(p.devices()));
        List<PhysicalDevice> physical = new ArrayList<>(watched);
        health.track(physical);
        healthWatch.watch(source, physical);
        plans.forEach(FrontEnd.Plan::serve);
    }

    private void devicesUnreadable(String message) {
        stopServing(new Problem.DevicesUnreadable(message));
        if (settings.node().failOnInitError()) {
            LOG.log(System.Logger.Level.ERROR, "{0} (failOnInitError is true)", message);
            control.exit(1, message);
            return;
        }
        unreadable.occurred(System.Logger.Level.ERROR, message,
                "{0}; registering no devices and retrying (failOnInitError is false)", message);
        devicesRetry.schedule();
    }

    /**
     * Serves nothing any more, because of {@code why}; the front-ends hear it if something was served, and always
     * when the node stops for good.
     */
    private void stopServing(Problem why) {
        tellFrontEnds(why);
        closeSource();
    }

    private void tellFrontEnds(Problem why) {
        boolean wasServing = notServing == null;
        notServing = why;
        if (wasServing || why instanceof Problem.Stopped) {
            frontEnds.forEach(f -> f.frontEnd().stopServing(why));
        }
    }

    private void closeSource() {
        if (healthWatch != null) {
            healthWatch.stop();
        }
        if (source != null) {
            try {
                source.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing the device source: {0}", e.getMessage());
            }
            source = null;
        }
    }

    /** On the thread that changed health: log and count, before the front-ends publish their new lists. */
    private void healthChanged(List<HealthTransition> transitions) {
        for (HealthTransition transition : transitions) {
            if (transition.healthy()) {
                LOG.log(System.Logger.Level.INFO, "{0} is Healthy again: {1}", transition.uuid(), transition.reason());
            } else {
                LOG.log(System.Logger.Level.WARNING, "{0} marked Unhealthy: {1}", transition.uuid(), transition.reason());
            }
            metrics.healthTransition(transition);
        }
    }

    private void publishStatus() {
        List<Problem> now = new ArrayList<>();
        if (notServing != null) {
            now.add(notServing);
        }
        reloadRejected.ifPresent(now::add);
        problems = List.copyOf(now);
        devicesReadable = notServing == null;
    }

    /** What the front-ends get: the node's health and its thread. */
    private final class Context implements NodeContext {

        @Override
        public HealthTracker health() {
            return health;
        }

        @Override
        public AllocationLedger ledger() {
            return ledger;
        }

        @Override
        public ComputeModes computeModes() {
            DeviceSource open = source;
            if (open == null) {
                throw new DeviceSourceException("the node's devices are not open (NVML not started)", null);
            }
            return open.computeModes();
        }

        @Override
        public Instant now() {
            return control.now();
        }

        @Override
        public void run(Runnable task) {
            control.post(task);
        }

        @Override
        public Supervisor.Timer after(Duration delay, Runnable task) {
            return control.after(delay, task);
        }

        @Override
        public Retry retry(Runnable action) {
            return new Retry(this, retries, action);
        }
    }
}
