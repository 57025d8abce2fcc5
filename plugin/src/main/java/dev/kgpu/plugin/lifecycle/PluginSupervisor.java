package dev.kgpu.plugin.lifecycle;

import dev.kgpu.agent.Backoff;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanException;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.health.HealthTracker;
import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.health.HealthWatch;
import dev.kgpu.plugin.lifecycle.PluginStatus.Problem;
import dev.kgpu.plugin.settings.PluginSettings;

import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The device plugin's lifecycle on one thread, {@value #THREAD_NAME}, fed by one queue of
 * {@link LifecycleEvent}s: start, kubelet restarts and deleted sockets, SIGHUP, retry timers, SIGTERM. Only
 * this thread opens and closes the device source, starts and stops servers and registers them.
 *
 * <p>Starting (again): read the inventory through the device source (NVML), plan the resources, then serve
 * and register each one, watch the devices' health ({@link HealthWatch}) and tell the
 * {@link LifecycleListener}s. If the devices cannot be read the plugin serves and registers nothing (a node
 * must not advertise GPUs it cannot give out): with {@code failOnInitError} it asks to exit, otherwise it
 * retries with backoff. Health changes need no event here: each {@code ResourceService} listens to the
 * {@link HealthTracker} itself.
 *
 * <p>Thread-safety: the public methods may be called from any thread.
 */
public final class PluginSupervisor {

    static final String THREAD_NAME = "plugin-supervisor";
    static final String TIMER_THREAD = "plugin-retries";
    /** Retries of a failed start, serve or registration: 0.5 s doubling up to 30 s. */
    public static final Backoff.Policy RETRIES = new Backoff.Policy(Duration.ofMillis(500), Duration.ofSeconds(30));
    private static final System.Logger LOG = System.getLogger(PluginSupervisor.class.getName());

    private final Supplier<PluginSettings> reload;
    private final DeviceSource.Factory devices;
    private final Kubelet kubelet;
    private final PluginMetrics metrics;
    private final List<LifecycleListener> listeners;
    private final Consumer<String> fatal;
    private final HealthTracker health;
    private final HealthWatch healthWatch;
    private final Backoff backoff;
    private final BlockingQueue<LifecycleEvent> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ScheduledExecutorService timer;
    private volatile PluginStatus status = PluginStatus.STARTING;

    // confined to the supervisor thread
    private PluginSettings settings;
    private DeviceSource source;
    private ServedResources served;
    /** Why nothing is served, or null while the plan is served. */
    private Problem notServing = new Problem.Starting();
    private Optional<Problem.ReloadRejected> reloadRejected = Optional.empty();
    /**
     * kubelet.sock is gone or not there yet: a kubelet that starts deletes every socket, then creates
     * kubelet.sock, which restarts them all, so a plugin socket deleted meanwhile is not served again alone.
     */
    private boolean kubeletStopped;
    private long retryGeneration;
    /** Why the devices could not be read at the last try, so that each cause is logged once. */
    private String lastUnreadable;

    /**
     * @param settings  the settings loaded at start
     * @param reload    loads the settings again (SIGHUP), the way the entry point did; throws
     *                  {@code ConfigException} when they are bad
     * @param devices   opens the device source (NVML)
     * @param kubelet   serves and registers the resources
     * @param clock     the health quiet period's clock
     * @param retries   the waits between retries
     * @param listeners told when the plugin starts and stops serving
     * @param fatal     called (on the supervisor thread) when the plugin cannot go on and should exit
     *                  non-zero; the caller decides how to exit
     */
    public PluginSupervisor(PluginSettings settings, Supplier<PluginSettings> reload, DeviceSource.Factory devices,
                            Kubelet kubelet, InstantSource clock, PluginMetrics metrics, Backoff.Policy retries,
                            List<LifecycleListener> listeners, Consumer<String> fatal) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.reload = Objects.requireNonNull(reload, "reload");
        this.devices = Objects.requireNonNull(devices, "devices");
        this.kubelet = Objects.requireNonNull(kubelet, "kubelet");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.listeners = List.copyOf(listeners);
        this.fatal = Objects.requireNonNull(fatal, "fatal");
        this.backoff = new Backoff(retries);
        this.health = new HealthTracker(settings.health(), clock);
        this.health.addListener(this::healthChanged);
        this.healthWatch = new HealthWatch(health, settings.health().watchesEvents(), settings.healthCheckInterval());
        this.served = ServedResources.none(kubelet, metrics, health);
        this.thread = Thread.ofPlatform().name(THREAD_NAME).unstarted(this::loop);
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name(TIMER_THREAD).daemon(true).factory());
        Supervision supervision = new Supervision() {
            @Override
            public HealthTracker health() {
                return health;
            }

            @Override
            public void schedule(Duration delay, Runnable task) {
                try {
                    timer.schedule(() -> queue.add(new LifecycleEvent.Task(task)), delay.toMillis(), TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    // the supervisor stopped
                }
            }
        };
        this.listeners.forEach(l -> l.attached(supervision));
    }

    // ---------------------------------------------------------------------------------------------
    // API for the entry point, signal handlers, health checks and tests

    /** Starts the supervisor thread; it starts the servers. */
    public void start() {
        queue.add(new LifecycleEvent.Start());
        thread.start();
    }

    /** SIGHUP: load the settings again, restart the servers with them (or keep the running ones if bad). */
    public void reload() {
        queue.add(new LifecycleEvent.Reload());
    }

    /**
     * SIGTERM: stops serving, removes the sockets and ends the supervisor thread; waits up to
     * {@code timeout}. Returns whether it has stopped by then. Any number of callers may wait for the same
     * stop.
     */
    public boolean stop(Duration timeout) {
        if (thread.getState() == Thread.State.NEW) {
            return true;
        }
        queue.add(new LifecycleEvent.Stop());
        try {
            return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public PluginStatus status() {
        return status;
    }

    /** Runs one health check now, on the calling thread (the health watch runs one every interval). */
    public HealthTracker.CheckResult checkHealthNow() {
        return healthWatch.checkNow();
    }

    // ---------------------------------------------------------------------------------------------
    // the supervisor thread

    private void loop() {
        try {
            try {
                kubelet.watch(change -> queue.add(new LifecycleEvent.KubeletChanged(change)));
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "cannot watch the device-plugins folder ({0}): kubelet restarts will"
                        + " not be noticed", e.getMessage());
            }
            while (true) {
                LifecycleEvent event = queue.take();
                if (event instanceof LifecycleEvent.Stop) {
                    shutdown();
                    return;
                }
                handle(event);
                publishStatus(true);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shutdown();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "the plugin supervisor failed", e);
            shutdown();
            fatal.accept("the plugin supervisor failed: " + e);
        } finally {
            stopped.countDown();
        }
    }

    private void handle(LifecycleEvent event) {
        switch (event) {
            case LifecycleEvent.Start start -> restart(settings, false, "start");
            case LifecycleEvent.Reload reloading -> reloadSettings();
            case LifecycleEvent.KubeletChanged(Kubelet.Change.KubeletStarted started) -> {
                kubeletStopped = false;
                restart(settings, false, "kubelet.sock was created (the kubelet restarted)");
            }
            case LifecycleEvent.KubeletChanged(Kubelet.Change.KubeletStopped stopped) -> kubeletStopped = true;
            case LifecycleEvent.KubeletChanged(Kubelet.Change.SocketDeleted deleted) -> {
                if (!kubeletStopped && served.socketDeleted(deleted.name())) {
                    serveAndRegister();
                }
            }
            case LifecycleEvent.Retry retry when retry.generation() != retryGeneration -> {
                // superseded by a later start or retry
            }
            case LifecycleEvent.Retry retry -> {
                if (notServing instanceof Problem.DevicesUnreadable) {
                    restart(settings, false, "retry");
                } else {
                    serveAndRegister();
                }
            }
            case LifecycleEvent.Task task -> task.task().run();
            case LifecycleEvent.Stop stop -> throw new IllegalStateException("Stop is handled by the loop");
        }
    }

    private void reloadSettings() {
        PluginSettings candidate;
        try {
            candidate = reload.get();
        } catch (RuntimeException e) {
            rejectReload(String.valueOf(e.getMessage()));
            return;
        }
        candidate.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, w.toString()));
        LOG.log(System.Logger.Level.INFO, "SIGHUP: Running with config:\n{0}", candidate.description());
        if (restart(candidate, true, "SIGHUP")) {
            reloadRejected = Optional.empty();
        }
    }

    private void rejectReload(String reason) {
        LOG.log(System.Logger.Level.ERROR, "SIGHUP: keeping the running config: {0}", reason);
        reloadRejected = Optional.of(new Problem.ReloadRejected(reason));
    }

    /**
     * Reads the devices and plans them with {@code candidate}, then replaces every server. Returns false
     * when a reload's plan fails: the running servers and settings stay.
     */
    private boolean restart(PluginSettings candidate, boolean reloading, String why) {
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
            return true;
        }
        List<PluginResource> planned;
        try {
            planned = candidate.devicePlugin() ? candidate.planner().plan(inventory) : List.of();
        } catch (ResourcePlanException e) {
            if (reloading) {
                rejectReload(e.getMessage());
                if (opened) {
                    closeSource();
                }
                return false;
            }
            stopServing(new Problem.Unservable(e.getMessage()));
            fatal.accept(e.getMessage());
            return true;
        }
        settings = candidate;
        if (lastUnreadable != null) {
            LOG.log(System.Logger.Level.INFO, "the devices can be read again");
            lastUnreadable = null;
        }
        notServing = null;
        retryGeneration++;
        backoff.reset();
        serve(inventory, planned);
        return true;
    }

    private void serve(NodeInventory inventory, List<PluginResource> planned) {
        dropServers();
        LinkedHashSet<PhysicalDevice> watched = new LinkedHashSet<>(planned.stream()
                .flatMap(r -> r.devices().stream().map(AdvertisedDevice::device)).toList());
        listeners.forEach(l -> watched.addAll(l.devices(settings, inventory)));
        List<PhysicalDevice> physical = new ArrayList<>(watched);
        health.track(physical);
        served = ServedResources.of(planned, inventory, settings, health, kubelet, metrics);
        if (planned.isEmpty() && settings.devicePlugin()) {
            LOG.log(System.Logger.Level.WARNING, "No devices found. Waiting indefinitely.");
        }
        boolean all = served.serve();
        healthWatch.watch(source, physical);
        if (!(served.register() && all)) {
            scheduleRetry();
        }
        listeners.forEach(l -> l.serving(settings, inventory, planned));
    }

    /** Serves and registers what is not yet; retries later what failed. */
    private void serveAndRegister() {
        boolean all = served.serve();
        if (served.register() && all) {
            backoff.reset();
        } else {
            // kubelet.sock being created also restarts everything; the timer covers a kubelet that refused
            scheduleRetry();
        }
    }

    private void devicesUnreadable(String message) {
        stopServing(new Problem.DevicesUnreadable(message));
        if (settings.failOnInitError()) {
            LOG.log(System.Logger.Level.ERROR, "{0} (failOnInitError is true)", message);
            fatal.accept(message);
            return;
        }
        // once per cause: a node without a driver for an hour is one line, not one per retry
        LOG.log(message.equals(lastUnreadable) ? System.Logger.Level.DEBUG : System.Logger.Level.ERROR,
                "{0}; registering no devices and retrying (failOnInitError is false)", message);
        lastUnreadable = message;
        scheduleRetry();
    }

    private void scheduleRetry() {
        long generation = ++retryGeneration;
        Duration delay = backoff.next();
        timer.schedule(() -> queue.add(new LifecycleEvent.Retry(generation)), delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Serves nothing any more, because of {@code why}; the listeners hear it if something was served, and always
     * when the plugin stops for good.
     */
    private void stopServing(Problem why) {
        boolean wasServing = notServing == null;
        dropServers();
        closeSource();
        notServing = why;
        if (wasServing || why instanceof Problem.Stopped) {
            listeners.forEach(l -> l.stopped(why));
        }
    }

    /** Stops every server and forgets its resource. */
    private void dropServers() {
        served.stop();
        served = ServedResources.none(kubelet, metrics, health);
    }

    private void closeSource() {
        healthWatch.stop();
        if (source != null) {
            try {
                source.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing the device source: {0}", e.getMessage());
            }
            source = null;
        }
    }

    private void shutdown() {
        LOG.log(System.Logger.Level.INFO, "stopping: removing the plugin's sockets");
        timer.shutdownNow();
        healthWatch.close();
        stopServing(new Problem.Stopped());
        kubelet.close();
        publishStatus(false);
    }

    /** On the thread that changed health: log and count, before the resources push their new lists. */
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

    private void publishStatus(boolean running) {
        List<Problem> problems = new ArrayList<>();
        if (notServing != null) {
            problems.add(notServing);
        } else if (served.names().isEmpty() && settings.devicePlugin()) {
            problems.add(new Problem.NoDevices());
        }
        problems.addAll(served.problems());
        reloadRejected.ifPresent(problems::add);
        status = new PluginStatus(running, notServing == null, settings.devicePlugin(), served.names(), served.serving(),
                served.registered(), kubelet.registers(), problems);
    }
}
