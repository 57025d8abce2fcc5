package dev.kgpu.sim.kubelet;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Device;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DeviceSpec;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Empty;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Mount;
import dev.kgpu.kubelet.deviceplugin.v1beta1.NUMANode;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreStartContainerRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A kubelet's device manager, as far as a device plugin can tell: written from the kubelet's
 * {@code pkg/kubelet/cm/devicemanager} behaviour for tests and for the simulated node.
 *
 * <ul>
 *   <li>Serves {@code /v1beta1.Registration/Register} on {@code kubelet.sock} in a device-plugins directory,
 *       after deleting every socket there (the kubelet's {@code CleanupPluginDirectory}).</li>
 *   <li>Checks a registration in the kubelet's order: version {@code v1beta1}; an extended resource name;
 *       a synchronous dial of the plugin's endpoint with a 10 s timeout. Then calls
 *       {@code GetDevicePluginOptions} and opens {@code ListAndWatch}.</li>
 *   <li>Treats every ListAndWatch message as the complete device list: capacity = all devices,
 *       allocatable = healthy ones. When the stream ends every device of the resource turns unhealthy.</li>
 *   <li>{@link #restart()} behaves like a new kubelet: deletes every socket in the directory, recreates
 *       {@code kubelet.sock}, and knows the resources only by name (no devices) until they register again.</li>
 *   <li>{@link #admit(PodSpec)} is a one-node scheduler plus the device manager's allocation: a pod fits
 *       when free allocatable covers its limits (else Pending with {@code Insufficient <resource>}); then
 *       per container and resource GetPreferredAllocation with one container request (when the plugin
 *       offers it), the reply intersected with the free healthy devices, then Allocate with one container
 *       request, whose response must hold at least one container response.</li>
 *   <li>Writes the device manager's checkpoint ({@link DeviceManagerCheckpoint}, {@link #checkpoint()}) after each
 *       admission and each device list, as the kubelet does; a released pod stays in it until the next write.</li>
 * </ul>
 *
 * <p>Listeners ({@link KubeletListener}) are called on one event thread, in order. Thread-safety: every
 * public method may be called from any thread; admissions are serialised.
 */
public final class KubeletSimulator implements AutoCloseable {

    /** The kubelet's registration socket, in the device-plugins directory. */
    public static final String KUBELET_SOCKET = "kubelet.sock";
    /** The only version {@code Register} accepts. */
    public static final String VERSION = "v1beta1";
    /** The kubelet dials a registering plugin with this timeout. */
    public static final Duration DIAL_TIMEOUT = Duration.ofSeconds(10);
    /** The kubelet's timeout for PreStartContainer. */
    public static final Duration PRE_START_TIMEOUT = Duration.ofSeconds(30);

    private final Path directory;
    private final Duration dialTimeout;
    private final UnixSocketTransport transport;
    private final ExecutorService registrationCalls;
    private final ExecutorService events;
    private final List<KubeletListener> listeners = new CopyOnWriteArrayList<>();

    private final Object lock = new Object();
    private final Object admissions = new Object();
    /** Orders checkpoint writes; taken before {@link #lock}, never inside it. */
    private final Object checkpointWrites = new Object();
    // guarded by lock
    private final Map<String, Resource> resources = new LinkedHashMap<>();
    private final Map<String, PodAllocation> pods = new LinkedHashMap<>();
    private final List<RegistrationEvent> registrationLog = new ArrayList<>();
    private Server server;
    private long restarts;
    private boolean closed;

    private KubeletSimulator(Path directory, Duration dialTimeout) {
        this.directory = directory.toAbsolutePath();
        this.dialTimeout = dialTimeout;
        this.transport = new UnixSocketTransport("kubelet-simulator", 1);
        this.registrationCalls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("kubelet-register-", 0).factory());
        this.events = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("kubelet-simulator-events").daemon().factory());
    }

    /** Starts a simulated kubelet on {@code directory}/kubelet.sock, creating the directory when needed. */
    public static KubeletSimulator start(Path directory) {
        return start(directory, DIAL_TIMEOUT);
    }

    /** As {@link #start(Path)}, dialing registering plugins with {@code dialTimeout} instead of the kubelet's 10 s. */
    public static KubeletSimulator start(Path directory, Duration dialTimeout) {
        KubeletSimulator simulator = new KubeletSimulator(directory, dialTimeout);
        try {
            simulator.serve();
        } catch (RuntimeException e) {
            simulator.close();
            throw e;
        }
        return simulator;
    }

    public Path directory() {
        return directory;
    }

    /** The registration socket, {@code <directory>/kubelet.sock}. */
    public Path socket() {
        return directory.resolve(KUBELET_SOCKET);
    }

    public void addListener(KubeletListener listener) {
        listeners.add(listener);
    }

    public void removeListener(KubeletListener listener) {
        listeners.remove(listener);
    }

    // ---------------------------------------------------------------------------------------------
    // lifecycle

    private void serve() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the kubelet simulator is closed");
            }
            try {
                Files.createDirectories(directory);
                cleanupPluginDirectory();
                server = transport.serve(socket(), registrationCalls, List.of(new RegistrationService()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Restarts like a kubelet does: the registration server stops, every plugin connection closes, every
     * socket in the directory is deleted, and {@code kubelet.sock} is created again. Known resources keep
     * their names but no devices (as after reading the checkpoint) until their plugin registers again.
     * Returns when the new {@code kubelet.sock} accepts connections.
     */
    public void restart() {
        List<PluginClient> clients;
        synchronized (lock) {
            stopServerLocked();
            clients = disconnectAllLocked();
            for (Resource resource : resources.values()) {
                resource.devices = List.of();
                resource.touch();
            }
            restarts++;
        }
        clients.forEach(PluginClient::close);
        serve();
        List<ResourceState> states = snapshots();
        fire(l -> l.onRestarted());
        states.forEach(s -> fire(l -> l.onDevicesChanged(s)));
        signal();
    }

    /** How many times {@link #restart()} ran. */
    public long restarts() {
        synchronized (lock) {
            return restarts;
        }
    }

    /** Stops serving kubelet.sock and disconnects every plugin, as a stopped kubelet would. */
    public void stop() {
        List<PluginClient> clients;
        synchronized (lock) {
            stopServerLocked();
            clients = disconnectAllLocked();
        }
        clients.forEach(PluginClient::close);
        signal();
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        stop();
        registrationCalls.shutdownNow();
        events.shutdown();
        try {
            events.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        transport.close();
    }

    /** Marks every resource disconnected and hands back their plugin clients, to be closed outside the lock. */
    private List<PluginClient> disconnectAllLocked() {
        List<PluginClient> clients = new ArrayList<>();
        for (Resource resource : resources.values()) {
            if (resource.client != null) {
                clients.add(resource.client);
                resource.client = null;
            }
            resource.connected = false;
        }
        return clients;
    }

    private void stopServerLocked() {
        if (server != null) {
            UnixSocketTransport.stop(server, socket());
            server = null;
        }
    }

    /** The kubelet's CleanupPluginDirectory: remove every socket, keep folders and regular files. */
    private void cleanupPluginDirectory() throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path entry : entries.toList()) {
                BasicFileAttributes attributes;
                try {
                    attributes = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException gone) {
                    continue;
                }
                if (attributes.isOther()) {
                    Files.deleteIfExists(entry);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // state

    /** The device manager's checkpoint, {@code <directory>/kubelet_internal_checkpoint}, once written. */
    public Path checkpoint() {
        return directory.resolve(DeviceManagerCheckpoint.FILE_NAME);
    }

    /** The kubelet's writeCheckpoint: the pods admitted now and every resource's devices. Never under {@link #lock}. */
    private void writeCheckpoint() {
        synchronized (checkpointWrites) {
            List<PodAllocation> admitted;
            Map<String, List<DeviceState>> devices = new LinkedHashMap<>();
            synchronized (lock) {
                if (closed) {
                    return;
                }
                admitted = List.copyOf(pods.values());
                resources.values().forEach(r -> devices.put(r.name, r.devices));
            }
            try {
                DeviceManagerCheckpoint.write(checkpoint(), admitted, devices);
            } catch (UncheckedIOException e) {
                // the kubelet logs the failure and goes on
                System.getLogger(KubeletSimulator.class.getName()).log(System.Logger.Level.ERROR, e.getMessage(), e);
            }
        }
    }

    /** Every resource the kubelet has heard of, in registration order. */
    public List<ResourceState> resources() {
        return snapshots();
    }

    public Optional<ResourceState> resource(String resourceName) {
        synchronized (lock) {
            return Optional.ofNullable(resources.get(resourceName)).map(Resource::snapshot);
        }
    }

    /** Node capacity per extended resource, as the kubelet would publish it. */
    public Map<String, Long> capacity() {
        Map<String, Long> capacity = new LinkedHashMap<>();
        snapshots().forEach(r -> capacity.put(r.resourceName(), r.capacity()));
        return capacity;
    }

    /** Node allocatable per extended resource, as the kubelet would publish it. */
    public Map<String, Long> allocatable() {
        Map<String, Long> allocatable = new LinkedHashMap<>();
        snapshots().forEach(r -> allocatable.put(r.resourceName(), r.allocatable()));
        return allocatable;
    }

    /** Every Register call answered so far, oldest first. */
    public List<RegistrationEvent> registrations() {
        synchronized (lock) {
            return List.copyOf(registrationLog);
        }
    }

    /** Pods admitted and not released, by name. */
    public Map<String, PodAllocation> pods() {
        synchronized (lock) {
            return Map.copyOf(pods);
        }
    }

    private List<ResourceState> snapshots() {
        synchronized (lock) {
            return resources.values().stream().map(Resource::snapshot).toList();
        }
    }

    /**
     * Waits until {@code resourceName} is known and {@code condition} holds for it, and returns that state.
     *
     * @throws IllegalStateException on timeout, with the last state seen
     */
    public ResourceState awaitResource(String resourceName, Predicate<ResourceState> condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (true) {
                Resource resource = resources.get(resourceName);
                ResourceState state = resource == null ? null : resource.snapshot();
                if (state != null && condition.test(state)) {
                    return state;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("timed out after " + timeout + " waiting for " + resourceName
                            + "; last state: " + (state == null ? "never registered" : state));
                }
                waitLocked(left);
            }
        }
    }

    /** Waits until {@code condition} (evaluated on simulator changes) holds. */
    public void await(BooleanSupplier condition, Duration timeout, String description) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("timed out after " + timeout + " waiting for " + description);
                }
                waitLocked(left);
            }
        }
    }

    private void waitLocked(long nanos) {
        try {
            TimeUnit.NANOSECONDS.timedWait(lock, Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(50)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }

    private void signal() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    private void fire(java.util.function.Consumer<KubeletListener> call) {
        if (listeners.isEmpty()) {
            return;
        }
        try {
            events.execute(() -> listeners.forEach(l -> {
                try {
                    call.accept(l);
                } catch (RuntimeException e) {
                    System.getLogger(KubeletSimulator.class.getName())
                            .log(System.Logger.Level.WARNING, "kubelet simulator listener failed", e);
                }
            }));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed: nobody listens any more
        }
    }

    // ---------------------------------------------------------------------------------------------
    // registration

    private final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
        @Override
        public void register(RegisterRequest request, StreamObserver<Empty> response) {
            Outcome outcome = handleRegister(request);
            RegistrationEvent event = new RegistrationEvent(request.getVersion(), request.getResourceName(),
                    request.getEndpoint(), outcome.error(), Instant.now());
            synchronized (lock) {
                registrationLog.add(event);
                lock.notifyAll();
            }
            fire(l -> l.onRegistration(event));
            // the stream opens once the registration is on record, so whoever sees a device list can
            // already see the registration that led to it
            outcome.then().run();
            if (outcome.error().isPresent()) {
                response.onError(Status.UNKNOWN.withDescription(outcome.error().get()).asRuntimeException());
            } else {
                response.onNext(Empty.getDefaultInstance());
                response.onCompleted();
            }
        }
    }

    /** A Register call's answer, and what to do once it is on record (open ListAndWatch). */
    private record Outcome(Optional<String> error, Runnable then) {
        static Outcome rejected(String error) {
            return new Outcome(Optional.of(error), () -> { });
        }
    }

    private Outcome handleRegister(RegisterRequest request) {
        if (!VERSION.equals(request.getVersion())) {
            return Outcome.rejected("requested API version \"%s\" is not supported by kubelet. Supported version is \"%s\""
                    .formatted(request.getVersion(), VERSION));
        }
        if (!ResourceNames.isExtendedResourceName(request.getResourceName())) {
            return Outcome.rejected("the ResourceName \"%s\" is invalid".formatted(request.getResourceName()));
        }
        PluginClient client;
        DevicePluginOptions options;
        try {
            client = PluginClient.dial(transport, directory.resolve(request.getEndpoint()), dialTimeout);
        } catch (RuntimeException e) {
            return Outcome.rejected("failed to dial device plugin: " + e.getMessage());
        }
        try {
            options = client.blocking.withDeadlineAfter(dialTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .getDevicePluginOptions(Empty.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            client.close();
            return Outcome.rejected("failed to get device plugin options: " + goError(e));
        }
        PluginClient previous;
        synchronized (lock) {
            Resource resource = resources.computeIfAbsent(request.getResourceName(), Resource::new);
            previous = resource.client;
            resource.client = client;
            resource.endpoint = request.getEndpoint();
            resource.preferredAllocationAvailable = options.getGetPreferredAllocationAvailable();
            resource.preStartRequired = options.getPreStartRequired();
            resource.registrations++;
        }
        if (previous != null) {
            previous.close();
        }
        // outlives this Register call: a child of the call's context would be cancelled when it returns
        return new Outcome(Optional.empty(), () -> io.grpc.Context.ROOT.run(
                () -> client.listAndWatch(new DeviceListObserver(request.getResourceName(), client))));
    }

    private final class DeviceListObserver implements StreamObserver<ListAndWatchResponse> {
        private final String resourceName;
        private final PluginClient client;

        DeviceListObserver(String resourceName, PluginClient client) {
            this.resourceName = resourceName;
            this.client = client;
        }

        @Override
        public void onNext(ListAndWatchResponse message) {
            List<DeviceState> devices = message.getDevicesList().stream().map(KubeletSimulator::toState).toList();
            ResourceState state;
            synchronized (lock) {
                Resource resource = resources.get(resourceName);
                if (resource == null || resource.client != client) {
                    return;
                }
                resource.devices = devices;
                resource.connected = true;
                resource.updates++;
                resource.touch();
                state = resource.snapshot();
                lock.notifyAll();
            }
            writeCheckpoint();
            fire(l -> l.onDevicesChanged(state));
        }

        @Override
        public void onError(Throwable t) {
            ended();
        }

        @Override
        public void onCompleted() {
            ended();
        }

        /** The kubelet's PluginDisconnected: every device of the resource becomes unhealthy. */
        private void ended() {
            ResourceState state;
            synchronized (lock) {
                Resource resource = resources.get(resourceName);
                if (resource == null || resource.client != client) {
                    return;
                }
                resource.client = null;
                resource.connected = false;
                resource.devices = resource.devices.stream().map(DeviceState::unhealthy).toList();
                resource.touch();
                state = resource.snapshot();
                lock.notifyAll();
            }
            client.channel.shutdownNow(); // on a gRPC thread: never wait for termination here
            fire(l -> l.onDevicesChanged(state));
        }
    }

    private static DeviceState toState(Device device) {
        List<Long> numa = device.hasTopology()
                ? device.getTopology().getNodesList().stream().map(NUMANode::getID).toList()
                : List.of();
        return new DeviceState(device.getID(), "Healthy".equals(device.getHealth()), numa);
    }

    // ---------------------------------------------------------------------------------------------
    // admission

    /**
     * Schedules {@code pod} on this node and, when it fits, allocates its devices the kubelet's way.
     * A pod already admitted under the same name is an error.
     */
    public PodAdmission admit(PodSpec pod) {
        PodAdmission admission;
        synchronized (admissions) {
            admission = admitSerially(pod);
        }
        fire(l -> l.onAdmission(admission));
        return admission;
    }

    private PodAdmission admitSerially(PodSpec pod) {
        Map<String, Long> totals = pod.totalLimits();
        synchronized (lock) {
            if (pods.containsKey(pod.name())) {
                throw new IllegalArgumentException("pod '" + pod.name() + "' is already admitted");
            }
            for (Map.Entry<String, Long> entry : totals.entrySet()) {
                Resource resource = resources.get(entry.getKey());
                long allocatable = resource == null ? 0 : resource.snapshot().allocatable();
                long used = usedLocked(entry.getKey()).size();
                if (allocatable - used < entry.getValue()) {
                    return new PodAdmission.Pending(pod.name(), "Insufficient " + entry.getKey());
                }
            }
        }
        Set<String> pickedThisPod = new HashSet<>();
        List<PodAllocation.ContainerAllocation> containers = new ArrayList<>();
        for (PodSpec.Container container : pod.containers()) {
            Map<String, List<String>> ids = new LinkedHashMap<>();
            ContainerAllocateResponse.Builder merged = ContainerAllocateResponse.newBuilder();
            for (Map.Entry<String, Long> limit : new java.util.TreeMap<>(container.limits()).entrySet()) {
                String resourceName = limit.getKey();
                int needed = Math.toIntExact(limit.getValue());
                try {
                    List<String> devices = allocateDevices(resourceName, needed, pickedThisPod);
                    pickedThisPod.addAll(devices);
                    ContainerAllocateResponse response = callAllocate(resourceName, devices);
                    ids.put(resourceName, devices);
                    mergeFirstWins(merged, response);
                } catch (AdmissionFailure failure) {
                    return new PodAdmission.Failed(pod.name(), "UnexpectedAdmissionError", failure.getMessage());
                }
            }
            containers.add(new PodAllocation.ContainerAllocation(container.name(), ids, merged.build()));
        }
        PodAllocation allocation = new PodAllocation(pod.name(), containers);
        synchronized (lock) {
            pods.put(pod.name(), allocation);
            lock.notifyAll();
        }
        writeCheckpoint();
        return new PodAdmission.Admitted(pod.name(), allocation);
    }

    /** Deletes an admitted pod and frees its devices; returns its allocation, or empty when unknown. */
    public Optional<PodAllocation> release(String podName) {
        PodAllocation removed;
        synchronized (lock) {
            removed = pods.remove(podName);
            lock.notifyAll();
        }
        if (removed != null) {
            fire(l -> l.onReleased(removed));
        }
        return Optional.ofNullable(removed);
    }

    private Set<String> usedLocked(String resourceName) {
        Set<String> used = new HashSet<>();
        pods.values().forEach(p -> used.addAll(p.deviceIds(resourceName)));
        return used;
    }

    /** The device manager's devicesToAllocate: free healthy devices, the plugin's preference first. */
    private List<String> allocateDevices(String resourceName, int needed, Set<String> pickedThisPod) {
        PluginClient client;
        boolean preferred;
        List<String> candidates;
        synchronized (lock) {
            Resource resource = resources.get(resourceName);
            if (resource == null) {
                throw new AdmissionFailure("cannot allocate unregistered device " + resourceName);
            }
            if (resource.client == null) {
                throw new AdmissionFailure("endpoint " + resource.endpoint + " has been stopped");
            }
            Set<String> used = usedLocked(resourceName);
            candidates = resource.devices.stream().filter(DeviceState::healthy).map(DeviceState::id)
                    .filter(id -> !used.contains(id) && !pickedThisPod.contains(id)).toList();
            if (resource.devices.stream().noneMatch(DeviceState::healthy)) {
                throw new AdmissionFailure("no healthy devices present; cannot allocate unhealthy devices " + resourceName);
            }
            if (candidates.size() < needed) {
                throw new AdmissionFailure("requested number of devices unavailable for %s. Requested: %d, Available: %d"
                        .formatted(resourceName, needed, candidates.size()));
            }
            client = resource.client;
            preferred = resource.preferredAllocationAvailable;
        }
        if (candidates.size() == needed) {
            return candidates;
        }
        LinkedHashSet<String> chosen = new LinkedHashSet<>();
        if (preferred) {
            PreferredAllocationRequest request = PreferredAllocationRequest.newBuilder()
                    .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder()
                            .addAllAvailableDeviceIDs(candidates)
                            .setAllocationSize(needed))
                    .build();
            PreferredAllocationResponse response;
            try {
                response = client.blocking.withDeadlineAfter(30, TimeUnit.SECONDS).getPreferredAllocation(request);
            } catch (StatusRuntimeException e) {
                throw new AdmissionFailure("GetPreferredAllocation failed due to " + goError(e) + ", which is unexpected");
            }
            if (response.getContainerResponsesCount() > 0) {
                for (String id : response.getContainerResponses(0).getDeviceIDsList()) {
                    if (candidates.contains(id) && chosen.size() < needed) {
                        chosen.add(id);
                    }
                }
            }
        }
        for (String id : candidates) {
            if (chosen.size() >= needed) {
                break;
            }
            chosen.add(id);
        }
        return List.copyOf(chosen);
    }

    private ContainerAllocateResponse callAllocate(String resourceName, List<String> devices) {
        PluginClient client;
        boolean preStart;
        synchronized (lock) {
            Resource resource = resources.get(resourceName);
            client = resource == null ? null : resource.client;
            preStart = resource != null && resource.preStartRequired;
        }
        if (client == null) {
            throw new AdmissionFailure("endpoint for " + resourceName + " has been stopped");
        }
        AllocateResponse response;
        try {
            response = client.blocking.withDeadlineAfter(30, TimeUnit.SECONDS).allocate(AllocateRequest.newBuilder()
                    .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(devices))
                    .build());
        } catch (StatusRuntimeException e) {
            throw new AdmissionFailure("Allocate failed due to " + goError(e) + ", which is unexpected");
        }
        if (response.getContainerResponsesCount() == 0) {
            throw new AdmissionFailure("no containers return in allocation response " + response);
        }
        if (preStart) {
            try {
                client.blocking.withDeadlineAfter(PRE_START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .preStartContainer(PreStartContainerRequest.newBuilder().addAllDevicesIds(devices).build());
            } catch (StatusRuntimeException e) {
                throw new AdmissionFailure("PreStartContainer failed due to " + goError(e));
            }
        }
        return response.getContainerResponses(0);
    }

    /** pod_devices.go: envs, device specs, mounts (by container path) and annotations, first wins. */
    private static void mergeFirstWins(ContainerAllocateResponse.Builder merged, ContainerAllocateResponse next) {
        next.getEnvsMap().forEach((k, v) -> {
            if (!merged.containsEnvs(k)) {
                merged.putEnvs(k, v);
            }
        });
        next.getAnnotationsMap().forEach((k, v) -> {
            if (!merged.containsAnnotations(k)) {
                merged.putAnnotations(k, v);
            }
        });
        Set<String> mountPaths = new HashSet<>();
        merged.getMountsList().forEach(m -> mountPaths.add(m.getContainerPath()));
        for (Mount mount : next.getMountsList()) {
            if (mountPaths.add(mount.getContainerPath())) {
                merged.addMounts(mount);
            }
        }
        Set<String> devicePaths = new HashSet<>();
        merged.getDevicesList().forEach(d -> devicePaths.add(d.getContainerPath()));
        for (DeviceSpec spec : next.getDevicesList()) {
            if (devicePaths.add(spec.getContainerPath())) {
                merged.addDevices(spec);
            }
        }
        merged.addAllCdiDevices(next.getCdiDevicesList());
    }

    /** An error as a Go gRPC client prints it. */
    static String goError(StatusRuntimeException e) {
        String code = Stream.of(e.getStatus().getCode().name().split("_"))
                .map(w -> w.charAt(0) + w.substring(1).toLowerCase(Locale.ROOT))
                .reduce("", String::concat);
        return "rpc error: code = " + code + " desc = " + e.getStatus().getDescription();
    }

    private static final class AdmissionFailure extends RuntimeException {
        AdmissionFailure(String message) {
            super(message);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // per-resource state and plugin connections

    private static final class Resource {
        final String name;
        String endpoint = "";
        boolean preferredAllocationAvailable;
        boolean preStartRequired;
        List<DeviceState> devices = List.of();
        boolean connected;
        int registrations;
        long updates;
        Instant updatedAt = Instant.now();
        PluginClient client;

        Resource(String name) {
            this.name = name;
        }

        void touch() {
            updatedAt = Instant.now();
        }

        ResourceState snapshot() {
            return new ResourceState(name, endpoint, preferredAllocationAvailable, preStartRequired, devices,
                    connected, registrations, updates, updatedAt);
        }
    }

    /** The kubelet's client of one registered plugin endpoint. */
    private static final class PluginClient {
        final ManagedChannel channel;
        final DevicePluginGrpc.DevicePluginBlockingStub blocking;
        final DevicePluginGrpc.DevicePluginStub async;

        private PluginClient(ManagedChannel channel) {
            this.channel = channel;
            this.blocking = DevicePluginGrpc.newBlockingStub(channel);
            this.async = DevicePluginGrpc.newStub(channel);
        }

        /** grpc.DialContext with WithBlock: returns once the connection is READY, or fails after {@code timeout}. */
        static PluginClient dial(UnixSocketTransport transport, Path socket, Duration timeout) {
            ManagedChannel channel = transport.dial(socket);
            long deadline = System.nanoTime() + timeout.toNanos();
            ConnectivityState state = channel.getState(true);
            while (state != ConnectivityState.READY) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || state == ConnectivityState.SHUTDOWN) {
                    UnixSocketTransport.close(channel);
                    throw new IllegalStateException("context deadline exceeded dialing " + socket + " (last state " + state + ")");
                }
                CountDownLatch changed = new CountDownLatch(1);
                channel.notifyWhenStateChanged(state, changed::countDown);
                try {
                    changed.await(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    UnixSocketTransport.close(channel);
                    throw new IllegalStateException("interrupted dialing " + socket, e);
                }
                state = channel.getState(true);
            }
            return new PluginClient(channel);
        }

        void listAndWatch(StreamObserver<ListAndWatchResponse> observer) {
            async.listAndWatch(Empty.getDefaultInstance(), observer);
        }

        void close() {
            UnixSocketTransport.close(channel);
        }
    }
}
