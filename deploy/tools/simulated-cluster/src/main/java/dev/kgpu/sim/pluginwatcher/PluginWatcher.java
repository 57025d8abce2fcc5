package dev.kgpu.sim.pluginwatcher;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.pluginregistration.v1.InfoRequest;
import dev.kgpu.kubelet.pluginregistration.v1.PluginInfo;
import dev.kgpu.kubelet.pluginregistration.v1.RegistrationGrpc;
import dev.kgpu.kubelet.pluginregistration.v1.RegistrationStatus;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The kubelet's plugin watcher and its DRA handler, as far as a DRA driver can tell: written from the kubelet's
 * {@code pkg/kubelet/pluginmanager} and {@code pkg/kubelet/cm/dra} behaviour for tests and for the simulated node.
 *
 * <ul>
 *   <li>Watches the {@code plugins_registry} folder (created 0755 when missing), existing entries first: a Unix socket
 *       created there whose name does not start with {@code .} is registered, created again re-registered; a socket
 *       deleted deregisters its plugin. Registrations run one at a time, in order, on the thread
 *       {@value #THREAD_NAME}.</li>
 *   <li>Registering: dial the socket, {@code GetInfo}, then only type {@code DRAPlugin} is taken ({@code no handler
 *       registered for plugin type} otherwise); the DRA handler needs a name and {@code v1.DRAPlugin} or
 *       {@code v1beta1.DRAPlugin} among {@code supported_versions} and prefers {@code v1}; then
 *       {@code NotifyRegistrationStatus(true)}, or {@code (false, error)} for any failure, with the reason.</li>
 *   <li>A registration that failed (refused, or the socket not accepting yet: the watcher sees a socket when it is
 *       bound, before it listens) is tried again with the reconciler's backoff ({@link #RETRY_INITIAL} doubling to
 *       {@link #RETRY_MAX}) while the same socket is there.</li>
 *   <li>{@link #refuseWith} makes it refuse registrations as a kubelet might (tests of a rejected registration).</li>
 *   <li>A registered driver is called through a {@link DraPluginClient} ({@link #driver}, {@link #awaitDriver}).</li>
 * </ul>
 * The kubelet waits 1 s for {@code GetInfo} and 5 s for {@code NotifyRegistrationStatus}; the simulator waits
 * {@link #CALL_TIMEOUT} for each, so that a loaded test machine never refuses a slow but healthy plugin.
 *
 * <p>What it leaves to its user: the kubelet deletes a driver's ResourceSlices of the node 30 s after the driver
 * deregistered (unless it registers again) and all of the node's slices when it starts; a
 * {@link PluginWatcherListener} hears of each deregistration to do so.
 *
 * <p>Thread-safety: every public method may be called from any thread.
 */
public final class PluginWatcher implements AutoCloseable {

    static final String THREAD_NAME = "kubelet-plugin-watcher";
    /** The plugin type the DRA handler takes. */
    public static final String DRA_PLUGIN = "DRAPlugin";
    /** The simulator's timeout for {@code GetInfo} and {@code NotifyRegistrationStatus}. */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    /** The kubelet's pending-operations backoff: first retry of a failed registration after this... */
    public static final Duration RETRY_INITIAL = Duration.ofMillis(500);
    /** ... doubling up to this (the kubelet's is 2 min 2 s; a test never waits that long). */
    public static final Duration RETRY_MAX = Duration.ofSeconds(8);
    /** The DRA services the kubelet knows, newest first. */
    public static final List<String> DRA_SERVICES = List.of(DraPluginClient.V1, DraPluginClient.V1BETA1);

    private final Path directory;
    private final List<String> services;
    private final UnixSocketTransport transport = new UnixSocketTransport("kubelet-plugin-watcher", 1);
    private final WatchService watchService;
    private final java.util.concurrent.ScheduledExecutorService registrations = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name(THREAD_NAME).daemon().factory());
    private final Thread watchThread;
    private final List<PluginWatcherListener> listeners = new CopyOnWriteArrayList<>();

    private final Object lock = new Object();
    // guarded by lock
    private final Map<String, DraPluginClient> drivers = new LinkedHashMap<>();
    private final Map<Path, String> driverBySocket = new LinkedHashMap<>();
    private final List<PluginRegistration> log = new ArrayList<>();
    /** Each socket's generation: bumped when it is created or deleted, so older retries of it are dropped. */
    private final Map<Path, Long> generations = new java.util.HashMap<>();
    private Function<PluginInfo, Optional<String>> refusal = info -> Optional.empty();
    private boolean closed;

    private PluginWatcher(Path directory, List<String> services) throws IOException {
        this.directory = directory.toAbsolutePath();
        this.services = List.copyOf(services);
        if (!Files.isDirectory(this.directory)) {
            Files.createDirectories(this.directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        }
        this.watchService = FileSystems.getDefault().newWatchService();
        this.directory.register(watchService, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        this.watchThread = Thread.ofPlatform().name(THREAD_NAME + "-events").daemon().unstarted(this::watch);
    }

    /** Starts watching {@code registryDirectory} (the kubelet's {@code /var/lib/kubelet/plugins_registry}). */
    public static PluginWatcher start(Path registryDirectory) {
        return start(registryDirectory, DRA_SERVICES);
    }

    /**
     * As {@link #start(Path)}, as a kubelet that knows only {@code kubeletServices} of the DRA services, newest first:
     * {@code [v1beta1.DRAPlugin]} is a kubelet 1.32 or 1.33.
     */
    public static PluginWatcher start(Path registryDirectory, List<String> kubeletServices) {
        try {
            PluginWatcher watcher = new PluginWatcher(registryDirectory, kubeletServices);
            try (Stream<Path> existing = Files.list(watcher.directory)) {
                existing.sorted().forEach(watcher::created);
            }
            watcher.watchThread.start();
            return watcher;
        } catch (IOException e) {
            throw new UncheckedIOException("could not watch " + registryDirectory, e);
        }
    }

    public Path directory() {
        return directory;
    }

    public void addListener(PluginWatcherListener listener) {
        listeners.add(listener);
    }

    /**
     * From now on, refuses a registration whose {@code GetInfo} makes {@code policy} return an error (then sent with
     * {@code NotifyRegistrationStatus(false, error)}); {@code info -> Optional.empty()} accepts again.
     */
    public void refuseWith(Function<PluginInfo, Optional<String>> policy) {
        synchronized (lock) {
            refusal = policy;
        }
    }

    /** The registered driver called {@code name}. */
    public Optional<DraPluginClient> driver(String name) {
        synchronized (lock) {
            return Optional.ofNullable(drivers.get(name));
        }
    }

    /** Waits until driver {@code name} is registered and returns its client. */
    public DraPluginClient awaitDriver(String name, Duration timeout) {
        await(() -> driver(name).isPresent(), timeout, "DRA driver " + name + " to register in " + directory);
        return driver(name).orElseThrow();
    }

    /** Every registration attempted so far, oldest first. */
    public List<PluginRegistration> registrations() {
        synchronized (lock) {
            return List.copyOf(log);
        }
    }

    /** Waits until {@code condition} holds, re-checked after each registration change. */
    public void await(BooleanSupplier condition, Duration timeout, String description) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("timed out after " + timeout + " waiting for " + description
                            + "; registrations: " + log);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + description, e);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    private void watch() {
        try {
            while (true) {
                WatchKey key = watchService.take();
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        try (Stream<Path> existing = Files.list(directory)) {
                            existing.sorted().forEach(this::created);
                        } catch (IOException e) {
                            // the folder is gone: nothing to register
                        }
                        continue;
                    }
                    Path path = directory.resolve(event.context().toString());
                    if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
                        created(path);
                    } else {
                        bump(path);
                        submit(() -> deregister(path));
                    }
                }
                if (!key.reset()) {
                    return;
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        }
    }

    private void created(Path path) {
        if (path.getFileName().toString().startsWith(".")) {
            return;
        }
        long generation = bump(path);
        submit(() -> attempt(path, generation, 1));
    }

    private long bump(Path path) {
        synchronized (lock) {
            return generations.merge(path, 1L, Long::sum);
        }
    }

    /** Registers the socket unless it changed since; a failure is tried again later, as the reconciler does. */
    private void attempt(Path path, long generation, int attempt) {
        synchronized (lock) {
            if (closed || generations.getOrDefault(path, 0L) != generation) {
                return;
            }
        }
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException gone) {
            return;
        }
        if (!attributes.isOther() || register(path)) {
            return;
        }
        long wait = Math.min(RETRY_MAX.toMillis(), RETRY_INITIAL.toMillis() << Math.min(attempt - 1, 20));
        try {
            registrations.schedule(() -> attempt(path, generation, attempt + 1), wait, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed
        }
    }

    private void submit(Runnable task) {
        try {
            registrations.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed
        }
    }

    /** One registration; whether the plugin is registered now. */
    private boolean register(Path socket) {
        ManagedChannel channel = transport.dial(socket);
        PluginInfo info = null;
        Optional<String> error;
        try {
            info = RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .getInfo(InfoRequest.getDefaultInstance());
            error = validate(socket, info);
        } catch (StatusRuntimeException e) {
            error = Optional.of("failed to get plugin info using RPC GetInfo at socket " + socket + ", err: " + e.getStatus());
        }
        DraPluginClient registered = null;
        if (error.isEmpty()) {
            String service = services.stream().filter(info.getSupportedVersionsList()::contains).findFirst().orElseThrow();
            registered = new DraPluginClient(transport, info.getName(), Path.of(info.getEndpoint().isEmpty()
                    ? socket.toString() : info.getEndpoint()), service);
        }
        try {
            RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(error.isEmpty())
                            .setError(error.orElse("")).build());
        } catch (StatusRuntimeException e) {
            // the kubelet logs it and keeps the registration it decided on
        } finally {
            UnixSocketTransport.close(channel);
        }
        PluginRegistration entry = new PluginRegistration(socket, info == null ? "" : info.getType(),
                info == null ? "" : info.getName(), info == null ? "" : info.getEndpoint(),
                info == null ? List.of() : info.getSupportedVersionsList(), error, Instant.now());
        DraPluginClient previous = null;
        synchronized (lock) {
            log.add(entry);
            if (registered != null) {
                previous = drivers.put(registered.driver(), registered);
                driverBySocket.put(socket, registered.driver());
            }
            lock.notifyAll();
        }
        if (previous != null) {
            previous.close();
        }
        listeners.forEach(l -> l.onRegistration(entry));
        return error.isEmpty();
    }

    private Optional<String> validate(Path socket, PluginInfo info) {
        if (!DRA_PLUGIN.equals(info.getType())) {
            return Optional.of("no handler registered for plugin type: " + info.getType() + " at socket " + socket);
        }
        if (info.getName().isEmpty()) {
            return Optional.of("invalid name of DRA plugin at socket " + socket + ": empty");
        }
        if (services.stream().noneMatch(info.getSupportedVersionsList()::contains)) {
            return Optional.of("none of the versions supported by the plugin " + info.getSupportedVersionsList()
                    + " is one the kubelet supports " + services);
        }
        Function<PluginInfo, Optional<String>> policy;
        synchronized (lock) {
            policy = refusal;
        }
        return policy.apply(info);
    }

    private void deregister(Path socket) {
        DraPluginClient removed = null;
        String name;
        synchronized (lock) {
            name = driverBySocket.remove(socket);
            if (name != null && !driverBySocket.containsValue(name)) {
                removed = drivers.remove(name);
            }
            lock.notifyAll();
        }
        if (removed != null) {
            removed.close();
            String driver = name;
            listeners.forEach(l -> l.onDeregistration(driver));
        }
    }

    @Override
    public void close() {
        List<DraPluginClient> clients;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            clients = List.copyOf(drivers.values());
            drivers.clear();
        }
        try {
            watchService.close();
        } catch (IOException e) {
            // closing anyway
        }
        registrations.shutdownNow();
        try {
            registrations.awaitTermination(5, TimeUnit.SECONDS);
            watchThread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        clients.forEach(DraPluginClient::close);
        transport.close();
    }
}
