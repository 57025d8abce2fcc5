package dev.kgpu.plugin.lifecycle;

import dev.kgpu.plugin.allocation.Allocator;
import dev.kgpu.plugin.allocation.PreferredAllocator;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.health.HealthSink;
import dev.kgpu.plugin.health.HealthTracker;
import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.kubelet.KubeletRegistration;
import dev.kgpu.plugin.kubelet.ResourceServer;
import dev.kgpu.plugin.kubelet.SocketDirectoryWatcher;
import dev.kgpu.plugin.kubelet.UnixSocketTransport;
import dev.kgpu.plugin.resources.PluginEvents;
import dev.kgpu.plugin.resources.ResourcePlanException;
import dev.kgpu.plugin.resources.ResourceService;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The device plugin's lifecycle on one thread, {@value #THREAD_NAME}, fed by one queue: start, kubelet
 * restarts ({@code kubelet.sock} created), deleted plugin sockets, SIGHUP, SIGTERM, NVML lost and back,
 * retry timers. Only this thread starts or stops servers, opens or closes the device source and
 * registers with the kubelet.
 *
 * <p>Starting the servers: open the device source (NVML), read the inventory, plan the resources, then for
 * each resource serve its socket and register it; then watch health events. If the devices cannot be read
 * the plugin serves and registers nothing (a node must not advertise GPUs it cannot give out): with
 * {@code failOnInitError} it asks to exit, otherwise it retries with backoff. Health events mark devices
 * at once, on the event thread; a periodic check on {@value #TIMER_THREAD} probes the devices so they
 * can recover.
 *
 * <p>Thread-safety: the public methods may be called from any thread.
 */
public final class PluginSupervisor {

    static final String THREAD_NAME = "plugin-supervisor";
    static final String TIMER_THREAD = "plugin-timers";
    private static final Logger LOG = Logger.getLogger(PluginSupervisor.class);

    /**
     * Timing of the supervisor's periodic work.
     *
     * @param healthCheckInterval how often devices are probed (recovery, lost devices)
     * @param initialRetry        first delay before retrying a failed start or registration
     * @param maxRetry            the longest such delay
     */
    public record Timing(Duration healthCheckInterval, Duration initialRetry, Duration maxRetry) {
        public static final Timing DEFAULT = new Timing(Duration.ofSeconds(5), Duration.ofMillis(500), Duration.ofSeconds(30));
    }

    private final Supplier<SetupReload> reloader;
    private final DeviceSource.Factory sources;
    private final PluginEvents events;
    private final Timing timing;
    private final Consumer<String> fatal;
    private final HealthTracker tracker;
    private final HealthPolicy healthPolicy;

    private final BlockingQueue<LifecycleEvent> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final ScheduledExecutorService timers;
    private volatile PluginStatus status = PluginStatus.STARTING;
    private volatile List<ResourceService> services = List.of();

    // confined to the supervisor thread
    private PluginSetup setup;
    private UnixSocketTransport transport;
    private KubeletRegistration registration;
    private SocketDirectoryWatcher watcher;
    private volatile DeviceSource source;
    /** Held while the device source is replaced or closed, and while a health check probes through it. */
    private final java.util.concurrent.locks.ReentrantLock sourceLock = new java.util.concurrent.locks.ReentrantLock();
    private DeviceSource.Watch healthWatch;
    private List<PhysicalDevice> watchedDevices = List.of();
    private final Map<String, ResourceServer> servers = new LinkedHashMap<>();
    private final Set<String> registered = new LinkedHashSet<>();
    private List<PluginResource> resources = List.of();
    private boolean devicesReadable;
    private Optional<String> problem = Optional.of("starting");
    private long starts;
    private long retryGeneration;
    /** kubelet.sock was deleted and not yet created again: a kubelet restart is under way. */
    private boolean kubeletGone;
    private final Backoff backoff;
    private ScheduledFuture<?> healthChecks;

    /**
     * @param setup    the configuration loaded at start
     * @param reloader re-reads the configuration on SIGHUP
     * @param sources  opens the device source (NVML) on each start
     * @param clock    the health quiet period's clock
     * @param fatal    called (on the supervisor thread) when the plugin cannot go on and should exit
     *                 non-zero; the caller decides how to exit
     */
    public PluginSupervisor(PluginSetup setup, Supplier<SetupReload> reloader, DeviceSource.Factory sources,
                            HealthPolicy healthPolicy, InstantSource clock, PluginEvents events, Timing timing,
                            Consumer<String> fatal) {
        this.setup = Objects.requireNonNull(setup, "setup");
        this.reloader = Objects.requireNonNull(reloader, "reloader");
        this.sources = Objects.requireNonNull(sources, "sources");
        this.healthPolicy = Objects.requireNonNull(healthPolicy, "healthPolicy");
        this.events = Objects.requireNonNull(events, "events");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.fatal = Objects.requireNonNull(fatal, "fatal");
        this.backoff = new Backoff(timing.initialRetry(), timing.maxRetry());
        this.tracker = new HealthTracker(healthPolicy, clock, d -> source == null
                ? Optional.of("NVML is not open") : source.probe().probe(d), this::onHealthChanged);
        this.thread = Thread.ofPlatform().name(THREAD_NAME).unstarted(this::loop);
        this.timers = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name(TIMER_THREAD).daemon(true).factory());
    }

    // ---------------------------------------------------------------------------------------------
    // API for the entry point, signal handlers, health checks and tests

    /** Starts the supervisor thread; it starts the servers. */
    public void start() {
        queue.add(new LifecycleEvent.Start());
        thread.start();
    }

    /** SIGHUP: re-read the configuration, restart the servers with it (or keep the running one if bad). */
    public void reload() {
        queue.add(new LifecycleEvent.Reload());
    }

    /**
     * SIGTERM: stops serving, removes the sockets and ends the supervisor thread; waits up to
     * {@code timeout}. Returns whether it finished in time.
     */
    public boolean stop(Duration timeout) {
        if (!thread.isAlive()) {
            return true;
        }
        CountDownLatch done = new CountDownLatch(1);
        queue.add(new LifecycleEvent.Stop(done));
        try {
            return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public PluginStatus status() {
        return status;
    }

    /** The health of every advertised device. */
    public HealthTracker health() {
        return tracker;
    }

    /** The services now served, one per resource. */
    public List<ResourceService> services() {
        return services;
    }

    /** Runs one health check now, on the calling thread (the timer does this every interval). */
    public HealthTracker.CheckResult checkHealthNow() {
        HealthTracker.CheckResult result;
        sourceLock.lock();
        try {
            if (source == null) {
                return new HealthTracker.CheckResult(List.of(), false, List.of());
            }
            result = tracker.check();
        } finally {
            sourceLock.unlock();
        }
        if (result.nvmlRestored()) {
            queue.add(new LifecycleEvent.NvmlRestored());
        }
        return result;
    }

    /** Fires the pending retry now instead of after its backoff delay. */
    public void retryNow() {
        queue.add(new LifecycleEvent.Retry(-1));
    }

    // ---------------------------------------------------------------------------------------------
    // the supervisor thread

    private void loop() {
        try {
            transport = new UnixSocketTransport("plugin-grpc", 1);
            registration = new KubeletRegistration(transport);
            startWatcher();
            healthChecks = timers.scheduleWithFixedDelay(this::periodicHealthCheck, timing.healthCheckInterval().toMillis(),
                    timing.healthCheckInterval().toMillis(), TimeUnit.MILLISECONDS);
            while (true) {
                List<LifecycleEvent> batch = new ArrayList<>();
                batch.add(queue.take());
                queue.drainTo(batch);
                if (!handle(batch)) {
                    return;
                }
                publishStatus(true);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shutdown();
        } catch (RuntimeException | Error e) {
            LOG.error("the plugin supervisor failed", e);
            shutdown();
            fatal.accept("the plugin supervisor failed: " + e);
        }
    }

    /** Handles a batch of queued events; false after Stop. */
    private boolean handle(List<LifecycleEvent> batch) {
        Optional<LifecycleEvent.Stop> stop = batch.stream().filter(LifecycleEvent.Stop.class::isInstance)
                .map(LifecycleEvent.Stop.class::cast).findFirst();
        if (stop.isPresent()) {
            shutdown();
            stop.get().done().countDown();
            return false;
        }
        boolean restarted = false;
        if (batch.stream().anyMatch(LifecycleEvent.Reload.class::isInstance)) {
            restarted = reloadConfiguration();
        }
        boolean restartWanted = batch.stream().anyMatch(e -> e instanceof LifecycleEvent.Start
                || e instanceof LifecycleEvent.KubeletSocketCreated
                || (e instanceof LifecycleEvent.Retry r && isCurrent(r) && !devicesReadable));
        if (restartWanted && !restarted) {
            String why = batch.stream().anyMatch(LifecycleEvent.KubeletSocketCreated.class::isInstance)
                    ? "kubelet.sock was created (the kubelet restarted)" : "start";
            restartAll(setup, false, why);
            restarted = true;
        }
        boolean serversRestarted = restarted;
        for (LifecycleEvent event : batch) {
            switch (event) {
                case LifecycleEvent.NvmlLost lost -> closeHealthWatch("NVML lost: " + lost.reason());
                case LifecycleEvent.NvmlRestored ignored -> {
                    if (healthWatch == null && source != null) {
                        LOG.info("NVML answers again; watching health events again");
                        startHealthWatch();
                    }
                }
                case LifecycleEvent.Retry retry when isCurrent(retry) && devicesReadable && !serversRestarted -> {
                    servers.values().stream().filter(s -> !s.started()).forEach(this::startServer);
                    registerAll();
                }
                case LifecycleEvent.SocketDeleted deleted when !serversRestarted -> socketDeleted(deleted.name());
                case LifecycleEvent.KubeletSocketCreated created -> kubeletGone = false;
                default -> {
                }
            }
        }
        return true;
    }

    private boolean isCurrent(LifecycleEvent.Retry retry) {
        return retry.generation() < 0 || retry.generation() == retryGeneration;
    }

    private boolean reloadConfiguration() {
        SetupReload outcome;
        try {
            outcome = reloader.get();
        } catch (RuntimeException e) {
            outcome = new SetupReload.Rejected(String.valueOf(e.getMessage()));
        }
        switch (outcome) {
            case SetupReload.Rejected rejected -> {
                LOG.errorf("SIGHUP: keeping the running config: %s", rejected.message());
                problem = Optional.of("reload rejected: " + rejected.message());
                return false;
            }
            case SetupReload.Loaded loaded -> {
                LOG.infof("SIGHUP: Running with config:%n%s", loaded.setup().description());
                return restartAll(loaded.setup(), true, "SIGHUP");
            }
        }
    }

    /**
     * Reads the devices with {@code candidate}, then replaces every server. Returns whether the servers were
     * replaced. On a reload whose plan fails, the running servers and configuration stay.
     */
    private boolean restartAll(PluginSetup candidate, boolean reload, String why) {
        LOG.infof("starting the plugin's servers (%s)", why);
        retryGeneration++;
        DeviceSource opened = source;
        NodeInventory inventory;
        List<PluginResource> planned;
        try {
            if (opened == null) {
                opened = sources.open();
            }
            inventory = opened.inventory();
        } catch (DeviceSourceException e) {
            if (opened != null) {
                dropSource(opened);
            }
            if (reload) {
                setup = candidate;
            }
            devicesUnreadable(e.getMessage());
            return true;
        }
        try {
            planned = candidate.planner().plan(inventory);
        } catch (ResourcePlanException e) {
            if (reload) {
                LOG.errorf("SIGHUP: keeping the running config: %s", e.getMessage());
                problem = Optional.of("reload rejected: " + e.getMessage());
                if (opened != source) {
                    closeQuietly(opened);
                }
                return false;
            }
            stopServing();
            dropSource(opened);
            problem = Optional.of(e.getMessage());
            fatal.accept(e.getMessage());
            return true;
        }
        stopServing();
        if (source != opened) {
            closeHealthWatch("the device source was reopened");
        }
        sourceLock.lock();
        try {
            if (source != null && source != opened) {
                closeQuietly(source);
            }
            source = opened;
        } finally {
            sourceLock.unlock();
        }
        setup = candidate;
        devicesReadable = true;
        problem = Optional.empty();
        backoff.reset();
        resources = planned;
        starts++;
        serve(inventory);
        return true;
    }

    private void serve(NodeInventory inventory) {
        Set<PhysicalDevice> physical = new LinkedHashSet<>();
        resources.forEach(r -> r.devices().forEach(d -> physical.add(d.device())));
        tracker.track(physical);
        Allocator allocator = new Allocator(setup.allocation(), () -> UUID.randomUUID().toString());
        PreferredAllocator preferred = new PreferredAllocator(inventory, setup.sharedPolicy());
        List<ResourceService> created = new ArrayList<>();
        for (PluginResource resource : resources) {
            ResourceService service = new ResourceService(resource, tracker::isHealthy, allocator, preferred, events);
            created.add(service);
            servers.put(resource.name(), new ResourceServer(transport, setup.socketDirectory(), service));
        }
        services = List.copyOf(created);
        if (resources.isEmpty()) {
            LOG.warn("No devices found. Waiting indefinitely.");
            problem = Optional.of("no devices found");
        }
        for (ResourceServer server : servers.values()) {
            startServer(server);
        }
        startHealthWatch();
        registerAll();
    }

    private void startServer(ResourceServer server) {
        try {
            server.start();
            LOG.infof("serving %s on %s", server.service().resource(), server.socket());
        } catch (IOException e) {
            LOG.errorf("could not serve %s: %s", server.service().resource().name(), e.getMessage());
            problem = Optional.of(e.getMessage());
            scheduleRetry();
        }
    }

    private void registerAll() {
        if (setup.kubeletSocket().isEmpty()) {
            return;
        }
        Path kubeletSocket = setup.kubeletSocket().get();
        boolean failed = false;
        for (ResourceServer server : servers.values()) {
            String name = server.service().resource().name();
            if (registered.contains(name) || !server.started()) {
                continue;
            }
            try {
                registration.register(kubeletSocket, name, server.socket().getFileName().toString());
                registered.add(name);
                events.registration(name, null);
                LOG.infof("registered %s with the kubelet on %s", name, kubeletSocket);
            } catch (KubeletRegistration.RegistrationException e) {
                if (Files.exists(kubeletSocket)) {
                    events.registration(name, e.getMessage());
                    LOG.warnf("could not register %s: %s", name, e.getMessage());
                } else {
                    LOG.infof("waiting for the kubelet to register %s: %s", name, e.getMessage());
                }
                problem = Optional.of(e.getMessage());
                failed = true;
            }
        }
        if (failed) {
            // kubelet.sock being created also triggers a restart; the timer covers a kubelet that refused
            scheduleRetry();
        } else if (registered.containsAll(servers.keySet())) {
            backoff.reset();
            if (problem.filter(p -> p.contains("register") || p.contains("kubelet")).isPresent()) {
                problem = Optional.empty();
            }
        }
    }

    private void socketDeleted(String name) {
        if (setup.kubeletSocket().filter(k -> k.getFileName().toString().equals(name)).isPresent()) {
            // the kubelet is restarting: it deletes every socket, then creates kubelet.sock, which restarts all
            kubeletGone = true;
            return;
        }
        if (kubeletGone) {
            return;
        }
        for (ResourceServer server : servers.values()) {
            if (server.socket().getFileName().toString().equals(name) && server.started() && !Files.exists(server.socket())) {
                String resource = server.service().resource().name();
                LOG.warnf("%s was deleted; serving %s again", server.socket(), resource);
                server.stop();
                registered.remove(resource);
                startServer(server);
                registerAll();
            }
        }
    }

    private void devicesUnreadable(String message) {
        stopServing();
        dropSource(source);
        devicesReadable = false;
        resources = List.of();
        problem = Optional.of(message);
        if (setup.failOnInitError()) {
            LOG.errorf("%s (failOnInitError is true)", message);
            fatal.accept(message);
            return;
        }
        LOG.errorf("%s; registering no devices and retrying (failOnInitError is false)", message);
        scheduleRetry();
    }

    private void scheduleRetry() {
        long generation = ++retryGeneration;
        Duration delay = backoff.next();
        timers.schedule(() -> queue.add(new LifecycleEvent.Retry(generation)), delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Watches the served devices' health events. A watch over the same devices keeps running (a kubelet
     * restart or a SIGHUP that changes no device never leaves a gap in which an XID could be missed).
     */
    private void startHealthWatch() {
        if (!healthPolicy.watchEvents() || source == null) {
            return;
        }
        List<PhysicalDevice> watched = new ArrayList<>(new LinkedHashSet<>(
                resources.stream().flatMap(r -> r.devices().stream().map(AdvertisedDevice::device)).toList()));
        if (healthWatch != null && watched.equals(watchedDevices)) {
            return;
        }
        closeHealthWatch("the devices changed");
        if (watched.isEmpty()) {
            return;
        }
        watchedDevices = List.copyOf(watched);
        try {
            healthWatch = source.watch(watched, new HealthSink() {
                @Override
                public void xid(String gpuUuid, long xid, OptionalInt gpuInstanceId, OptionalInt computeInstanceId) {
                    LOG.infof("XID %d on %s%s", xid, gpuUuid, gpuInstanceId.isPresent()
                            ? " (GI " + gpuInstanceId.getAsInt() + ", CI " + computeInstanceId.orElse(-1) + ")" : "");
                    tracker.onXid(gpuUuid, xid, gpuInstanceId, computeInstanceId);
                }

                @Override
                public void lost(String reason) {
                    tracker.onNvmlLost(reason);
                    queue.add(new LifecycleEvent.NvmlLost(reason));
                }
            });
        } catch (DeviceSourceException e) {
            tracker.onNvmlLost(e.getMessage());
        }
    }

    private void closeHealthWatch(String why) {
        if (healthWatch != null) {
            LOG.infof("health events stopped: %s", why);
            healthWatch.close();
            healthWatch = null;
            watchedDevices = List.of();
        }
    }

    private void stopServing() {
        for (ResourceServer server : servers.values()) {
            server.stop();
        }
        servers.clear();
        registered.clear();
        services = List.of();
    }

    private void shutdown() {
        LOG.info("stopping: removing the plugin's sockets");
        if (healthChecks != null) {
            healthChecks.cancel(false);
        }
        timers.shutdownNow();
        stopServing();
        dropSource(source);
        if (watcher != null) {
            watcher.close();
        }
        if (transport != null) {
            transport.close();
        }
        publishStatus(false);
    }

    private void startWatcher() {
        Path directory = setup.socketDirectory();
        String kubeletSocketName = setup.kubeletSocket().map(p -> p.getFileName().toString()).orElse("kubelet.sock");
        try {
            watcher = SocketDirectoryWatcher.start(directory, kubeletSocketName, change -> {
                switch (change) {
                    case SocketDirectoryWatcher.Change.KubeletSocketCreated created ->
                            queue.add(new LifecycleEvent.KubeletSocketCreated());
                    case SocketDirectoryWatcher.Change.Deleted deleted ->
                            queue.add(new LifecycleEvent.SocketDeleted(deleted.name()));
                }
            });
        } catch (IOException e) {
            LOG.errorf("cannot watch %s (%s): kubelet restarts will not be noticed", directory, e.getMessage());
        }
    }

    private void periodicHealthCheck() {
        try {
            checkHealthNow();
        } catch (RuntimeException e) {
            LOG.warnf("health check failed: %s", e.getMessage());
        }
    }

    private void onHealthChanged(List<HealthTransition> transitions) {
        for (HealthTransition transition : transitions) {
            if (transition.healthy()) {
                LOG.infof("%s is Healthy again: %s", transition.uuid(), transition.reason());
            } else {
                LOG.warnf("%s marked Unhealthy: %s", transition.uuid(), transition.reason());
            }
            events.healthTransition(transition);
        }
        for (ResourceService service : services) {
            service.refresh();
        }
    }

    private void publishStatus(boolean running) {
        Set<String> serving = new LinkedHashSet<>();
        servers.forEach((name, server) -> {
            if (server.serving()) {
                serving.add(name);
            }
        });
        status = new PluginStatus(running, devicesReadable, resources.stream().map(PluginResource::name).toList(),
                serving, registered, setup.kubeletSocket().isPresent(), problem, starts);
    }

    /** Closes {@code dropped} (and the current source, if it is that one) while no health check probes. */
    private void dropSource(DeviceSource dropped) {
        if (dropped != null && dropped == source) {
            closeHealthWatch("the device source closes");
        }
        sourceLock.lock();
        try {
            if (dropped != null) {
                closeQuietly(dropped);
            }
            if (source == dropped) {
                source = null;
            }
        } finally {
            sourceLock.unlock();
        }
    }

    private static void closeQuietly(DeviceSource source) {
        try {
            source.close();
        } catch (RuntimeException e) {
            LOG.debugf("closing the device source: %s", e.getMessage());
        }
    }
}
