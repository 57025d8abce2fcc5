package dev.kgpu.exporter.podresources;

import dev.kgpu.exporter.pods.ContainerDevices;
import dev.kgpu.exporter.pods.PodResourcesException;
import dev.kgpu.exporter.pods.PodResourcesSource;
import dev.kgpu.kubelet.podresources.v1.ContainerResources;
import dev.kgpu.kubelet.podresources.v1.ListPodResourcesRequest;
import dev.kgpu.kubelet.podresources.v1.ListPodResourcesResponse;
import dev.kgpu.kubelet.podresources.v1.PodResources;
import dev.kgpu.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Calls the kubelet's {@code /v1.PodResourcesLister/List} over its Unix socket with grpc-java on Netty
 * (NIO domain sockets), authority {@code localhost}.
 *
 * <p>The channel is kept between calls and dialled anew when the socket file is a different file than the
 * one dialled (the kubelet restarted and recreated it) or after the kubelet stopped answering, so a
 * restarted kubelet is reached at the next call instead of after gRPC's reconnect back-off.
 *
 * <p>Not thread-safe: the collection thread owns it.
 */
// Netty creates the channel reflectively (ReflectiveChannelFactory): a native image must know its constructor
@RegisterForReflection(targets = NioDomainSocketChannel.class)
public final class PodResourcesClient implements PodResourcesSource {

    private static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

    private final Path socket;
    private final Duration timeout;
    private final EventLoopGroup eventLoop;
    private ManagedChannel channel;
    private PodResourcesListerGrpc.PodResourcesListerBlockingStub stub;
    private Object dialledFile;
    private boolean redialNext;

    public PodResourcesClient(Path socket, Duration timeout) {
        this.socket = socket;
        this.timeout = timeout;
        this.eventLoop = new NioEventLoopGroup(1, new DefaultThreadFactory("pod-resources-client", true));
    }

    @Override
    public List<ContainerDevices> list() throws PodResourcesException {
        Object file = identity();
        if (file == null) {
            closeChannel();
            throw new PodResourcesException.SocketMissing("socket " + socket + " does not exist");
        }
        if (channel == null || redialNext || !file.equals(dialledFile)) {
            closeChannel();
            dial(file);
        }
        try {
            ListPodResourcesResponse response = stub.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .list(ListPodResourcesRequest.getDefaultInstance());
            return convert(response);
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            String message = "List on " + socket + " failed: " + code
                    + (e.getStatus().getDescription() == null ? "" : " " + e.getStatus().getDescription());
            switch (code) {
                case RESOURCE_EXHAUSTED -> throw new PodResourcesException.RateLimited(message, e);
                case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED -> {
                    redialNext = true;
                    throw new PodResourcesException.Unavailable(message, e);
                }
                default -> {
                    redialNext = true;
                    throw new PodResourcesException.Failed(message, e);
                }
            }
        } catch (RuntimeException e) {
            redialNext = true;
            throw new PodResourcesException.Failed("List on " + socket + " failed: " + e, e);
        }
    }

    static List<ContainerDevices> convert(ListPodResourcesResponse response) {
        List<ContainerDevices> devices = new ArrayList<>();
        for (PodResources pod : response.getPodResourcesList()) {
            for (ContainerResources container : pod.getContainersList()) {
                for (dev.kgpu.kubelet.podresources.v1.ContainerDevices d : container.getDevicesList()) {
                    devices.add(new ContainerDevices(pod.getName(), pod.getNamespace(), container.getName(),
                            d.getResourceName(), d.getDeviceIdsList()));
                }
            }
        }
        return devices;
    }

    /** What identifies the socket file now (inode and creation time), or null when it is missing. */
    private Object identity() {
        try {
            BasicFileAttributes attributes = Files.readAttributes(socket, BasicFileAttributes.class);
            return List.of(Objects.requireNonNullElse(attributes.fileKey(), "no-key"),
                    attributes.creationTime(), attributes.lastModifiedTime());
        } catch (IOException e) {
            return null;
        }
    }

    private void dial(Object file) {
        channel = NettyChannelBuilder.forAddress(UnixDomainSocketAddress.of(socket))
                .channelType(NioDomainSocketChannel.class)
                .eventLoopGroup(eventLoop)
                .overrideAuthority("localhost")
                .usePlaintext()
                .maxInboundMessageSize(MAX_MESSAGE_BYTES)
                .build();
        stub = PodResourcesListerGrpc.newBlockingStub(channel);
        dialledFile = file;
        redialNext = false;
    }

    private void closeChannel() {
        if (channel != null) {
            channel.shutdownNow();
            channel = null;
            stub = null;
            dialledFile = null;
        }
    }

    @Override
    public void close() {
        closeChannel();
        eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
