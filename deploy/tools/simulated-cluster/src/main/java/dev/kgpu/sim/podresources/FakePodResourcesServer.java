package dev.kgpu.sim.podresources;

import dev.kgpu.agent.Startup;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.kubelet.podresources.v1.AllocatableResourcesRequest;
import dev.kgpu.kubelet.podresources.v1.AllocatableResourcesResponse;
import dev.kgpu.kubelet.podresources.v1.ContainerDevices;
import dev.kgpu.kubelet.podresources.v1.ContainerResources;
import dev.kgpu.kubelet.podresources.v1.GetPodResourcesRequest;
import dev.kgpu.kubelet.podresources.v1.GetPodResourcesResponse;
import dev.kgpu.kubelet.podresources.v1.ListPodResourcesRequest;
import dev.kgpu.kubelet.podresources.v1.ListPodResourcesResponse;
import dev.kgpu.kubelet.podresources.v1.PodResources;
import dev.kgpu.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A kubelet PodResources v1 server on a Unix socket, for tests and the simulated node: a real gRPC server
 * (grpc-java on Netty NIO domain sockets) whose pod → device assignments a test sets.
 *
 * <p>Like the kubelet it rate-limits unary calls (token bucket, 100 per second, burst 10 by default)
 * and answers an excess call with {@code RESOURCE_EXHAUSTED "rejected by rate limit"}; {@link #restart()}
 * stops it, removes the socket file and serves again on a new socket file at the same path, as a kubelet
 * restart does.
 *
 * <pre>{@code
 * try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"))) {
 *     kubelet.assign("trainer-0", "ml", "main", "nvidia.com/gpu", List.of("GPU-7c1d…"));
 *     ... point DCGM_POD_RESOURCES_KUBELET_SOCKET at kubelet.socket() ...
 * }
 * }</pre>
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
public final class FakePodResourcesServer implements AutoCloseable {

    /** The kubelet's default limits ({@code pkg/kubelet/apis/podresources/grpc/ratelimit.go}). */
    public static final double DEFAULT_QPS = 100;
    public static final int DEFAULT_BURST = 10;

    private record Key(String pod, String namespace, String container) {
    }

    private final Path socket;
    private final InstantSource clock;
    private final EventLoopGroup eventLoop;
    private final Map<Key, Map<String, List<String>>> assignments = new LinkedHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private Server server;
    private double qps = DEFAULT_QPS;
    private int burst = DEFAULT_BURST;
    private double tokens = DEFAULT_BURST;
    private Instant refilledAt;

    private FakePodResourcesServer(Path socket, InstantSource clock) {
        this.socket = socket;
        this.clock = clock;
        this.refilledAt = clock.instant();
        this.eventLoop = new NioEventLoopGroup(1, new DefaultThreadFactory("fake-pod-resources", true));
    }

    /** Serves on {@code socket} (its folder is created; a stale socket file is replaced). */
    public static FakePodResourcesServer start(Path socket) {
        return start(socket, InstantSource.system());
    }

    /** Serves on {@code socket}, measuring the rate limit against {@code clock}. */
    public static FakePodResourcesServer start(Path socket, InstantSource clock) {
        FakePodResourcesServer fake = new FakePodResourcesServer(socket, clock);
        fake.serve();
        return fake;
    }

    public Path socket() {
        return socket;
    }

    /**
     * Gives {@code container} of pod {@code namespace/pod} these devices of {@code resource} (replacing what
     * it had of that resource), e.g. {@code assign("job-0", "ml", "trainer", "nvidia.com/gpu", List.of(uuid))}.
     */
    public synchronized FakePodResourcesServer assign(String pod, String namespace, String container, String resource,
                                                      List<String> deviceIds) {
        assignments.computeIfAbsent(new Key(pod, namespace, container), k -> new LinkedHashMap<>())
                .put(resource, List.copyOf(deviceIds));
        return this;
    }

    /** Removes pod {@code namespace/pod} (all its containers). */
    public synchronized FakePodResourcesServer remove(String pod, String namespace) {
        assignments.keySet().removeIf(key -> key.pod.equals(pod) && key.namespace.equals(namespace));
        return this;
    }

    /** Removes every assignment. */
    public synchronized FakePodResourcesServer clear() {
        assignments.clear();
        return this;
    }

    /** Sets the rate limit (calls per second, burst) and refills the bucket. */
    public synchronized FakePodResourcesServer rateLimit(double qps, int burst) {
        this.qps = qps;
        this.burst = burst;
        this.tokens = burst;
        this.refilledAt = clock.instant();
        return this;
    }

    /** Calls answered or rejected since start (all methods). */
    public long requestCount() {
        return requests.get();
    }

    /** Calls rejected by the rate limit since start. */
    public long rejectedCount() {
        return rejected.get();
    }

    /** Stops serving and removes the socket file, as a kubelet going down does. */
    public synchronized void stop() {
        if (server != null) {
            server.shutdownNow();
            try {
                server.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server = null;
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A kubelet restart: stops, removes the socket file, serves again on a new one at the same path. */
    public synchronized void restart() {
        stop();
        serve();
    }

    private synchronized void serve() {
        try {
            Files.createDirectories(socket.toAbsolutePath().getParent());
            Files.deleteIfExists(socket);
            server = NettyServerBuilder.forAddress(UnixDomainSocketAddress.of(socket))
                    .channelType(NioServerDomainSocketChannel.class)
                    .bossEventLoopGroup(eventLoop)
                    .workerEventLoopGroup(eventLoop)
                    .addService(new Lister())
                    .build()
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not serve pod resources on " + socket, e);
        }
    }

    private synchronized boolean admit() {
        requests.incrementAndGet();
        Instant now = clock.instant();
        double seconds = Duration.between(refilledAt, now).toNanos() / 1e9;
        if (seconds > 0) {
            tokens = Math.min(burst, tokens + seconds * qps);
            refilledAt = now;
        }
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        rejected.incrementAndGet();
        return false;
    }

    private synchronized ListPodResourcesResponse snapshot() {
        Map<String, PodResources.Builder> pods = new LinkedHashMap<>();
        assignments.forEach((key, resources) -> {
            PodResources.Builder pod = pods.computeIfAbsent(key.namespace + "/" + key.pod,
                    k -> PodResources.newBuilder().setName(key.pod).setNamespace(key.namespace));
            ContainerResources.Builder container = ContainerResources.newBuilder().setName(key.container);
            resources.forEach((resource, ids) -> container.addDevices(
                    ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(ids)));
            pod.addContainers(container);
        });
        ListPodResourcesResponse.Builder response = ListPodResourcesResponse.newBuilder();
        List<PodResources> built = new ArrayList<>();
        pods.values().forEach(p -> built.add(p.build()));
        return response.addAllPodResources(built).build();
    }

    private final class Lister extends PodResourcesListerGrpc.PodResourcesListerImplBase {
        @Override
        public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> observer) {
            if (!admit()) {
                observer.onError(Status.RESOURCE_EXHAUSTED.withDescription("rejected by rate limit").asRuntimeException());
                return;
            }
            observer.onNext(snapshot());
            observer.onCompleted();
        }

        @Override
        public void getAllocatableResources(AllocatableResourcesRequest request,
                                            StreamObserver<AllocatableResourcesResponse> observer) {
            if (!admit()) {
                observer.onError(Status.RESOURCE_EXHAUSTED.withDescription("rejected by rate limit").asRuntimeException());
                return;
            }
            observer.onNext(AllocatableResourcesResponse.getDefaultInstance());
            observer.onCompleted();
        }

        @Override
        public void get(GetPodResourcesRequest request, StreamObserver<GetPodResourcesResponse> observer) {
            if (!admit()) {
                observer.onError(Status.RESOURCE_EXHAUSTED.withDescription("rejected by rate limit").asRuntimeException());
                return;
            }
            snapshot().getPodResourcesList().stream()
                    .filter(p -> p.getName().equals(request.getPodName())
                            && p.getNamespace().equals(request.getPodNamespace()))
                    .findFirst()
                    .ifPresentOrElse(p -> {
                        observer.onNext(GetPodResourcesResponse.newBuilder().setPodResources(p).build());
                        observer.onCompleted();
                    }, () -> observer.onError(Status.NOT_FOUND
                            .withDescription("pod " + request.getPodNamespace() + "/" + request.getPodName() + " not found")
                            .asRuntimeException()));
        }
    }

    /** {@code --socket}: where to serve. */
    static final Setting<String> SOCKET = Setting.of(List.of("socket"), List.of(), ValueType.string(), "",
            "the Unix socket to serve PodResources v1 on");
    /** {@code --every-gpu}: a pod per GPU. */
    static final Setting<Boolean> EVERY_GPU = Setting.of(List.of("every-gpu"), List.of(), ValueType.bool(), false,
            "give each GPU NVML reports (KGPU_NVML_LIBRARY) to a pod of its own, each MIG device too");

    /** The command line: where to serve, and whether every GPU gets a pod. */
    record Options(Path socket, boolean everyGpu) {
    }

    /** Reads the command line with the agents' shared loader: one line naming a bad flag, or --help. */
    static Startup<Options> options(String[] args) {
        return Startup.load("fake-pod-resources", () -> new ConfigLoader<>(new ConfigLoader.Agent<>("fake-pod-resources",
                List.of(SOCKET, EVERY_GPU), resolved -> {
                    String socket = resolved.get(SOCKET);
                    if (socket.isBlank()) {
                        resolved.fail(SOCKET, socket, "must name the Unix socket to serve on");
                    }
                    return new Options(Path.of(socket), resolved.get(EVERY_GPU));
                }), args, name -> null).load());
    }

    /**
     * Serves until the process is stopped: {@code FakePodResourcesServer --socket=<path> [--every-gpu]}. With
     * {@code --every-gpu} each GPU NVML reports ({@code KGPU_NVML_LIBRARY}) is given to its own pod
     * {@code default/gpu-pod-<index>} (container {@code main}), each MIG device to
     * {@code default/mig-pod-<index>-<n>} under {@code nvidia.com/mig-<profile>}. Used by the benchmark and
     * handy for the simulated node.
     */
    public static void main(String[] args) throws InterruptedException {
        Options options = switch (options(args)) {
            case Startup.Exit<Options> exit -> {
                System.exit(exit.print(System.out, System.err));
                yield null;
            }
            case Startup.Run<Options>(Options read) -> read;
        };
        FakePodResourcesServer server = start(options.socket());
        if (options.everyGpu()) {
            try (dev.kgpu.nvml.Nvml nvml = dev.kgpu.nvml.Nvml.open()) {
                for (dev.kgpu.nvml.GpuDevice gpu : nvml.devices()) {
                    List<dev.kgpu.nvml.MigDevice> migs = gpu.migDevices();
                    if (migs.isEmpty()) {
                        server.assign("gpu-pod-" + gpu.index(), "default", "main", "nvidia.com/gpu", List.of(gpu.uuid()));
                    }
                    for (int n = 0; n < migs.size(); n++) {
                        dev.kgpu.nvml.MigDevice mig = migs.get(n);
                        server.assign("mig-pod-" + gpu.index() + "-" + n, "default", "main",
                                "nvidia.com/mig-" + mig.profile().name(), List.of(mig.uuid()));
                    }
                }
            }
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        System.out.println("serving PodResources v1 on " + server.socket());
        Thread.currentThread().join();
    }

    @Override
    public void close() {
        stop();
        eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
