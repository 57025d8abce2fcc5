package dev.kgpu.kubelet;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * gRPC over Unix domain sockets, as the kubelet speaks it: grpc-java's Netty transport on the JDK's
 * {@link UnixDomainSocketAddress} through Netty's NIO domain-socket channels, plaintext, authority
 * {@code localhost}.
 *
 * <p>One transport owns two small Netty event-loop groups (one accepting thread, {@code workerThreads}
 * I/O threads, all daemon threads named after {@code name}) shared by every server it serves and every
 * channel it dials. Thread-safety: all methods may be called from any thread.
 */
public final class UnixSocketTransport implements AutoCloseable {

    /**
     * The most bytes a Unix socket's path may have: {@code sun_path} holds 108 with the closing NUL. Checked
     * before anything binds, so a long path is one line at start rather than a bind that fails on every retry.
     */
    public static final int MAX_SOCKET_PATH_BYTES = 107;

    private static final String AUTHORITY = "localhost";

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;

    public UnixSocketTransport(String name, int workerThreads) {
        this.boss = new NioEventLoopGroup(1, new DefaultThreadFactory(name + "-accept", true));
        this.workers = new NioEventLoopGroup(workerThreads, new DefaultThreadFactory(name + "-io", true));
    }

    /**
     * Serves {@code services} on {@code socket}, replacing a stale socket file there. With a null
     * {@code executor} calls run on the I/O thread (for handlers that never block).
     */
    public Server serve(Path socket, Executor executor, List<BindableService> services) throws IOException {
        int bytes = socket.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SOCKET_PATH_BYTES) {
            throw new IOException("could not serve gRPC on " + socket + ": the path has " + bytes + " bytes, more than"
                    + " the " + MAX_SOCKET_PATH_BYTES + " a Unix socket's path may have");
        }
        Files.createDirectories(socket.toAbsolutePath().getParent());
        Files.deleteIfExists(socket);
        NettyServerBuilder builder = NettyServerBuilder.forAddress(UnixDomainSocketAddress.of(socket))
                .channelFactory(NioServerDomainSocketChannel::new) // no reflection: a native image needs none
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .permitKeepAliveWithoutCalls(true)
                .permitKeepAliveTime(5, TimeUnit.SECONDS);
        if (executor == null) {
            builder.directExecutor();
        } else {
            builder.executor(executor);
        }
        services.forEach(builder::addService);
        try {
            return builder.build().start();
        } catch (IOException e) {
            throw new IOException("could not serve gRPC on " + socket + ": " + e.getMessage(), e);
        }
    }

    /** A channel to the gRPC server on {@code socket}; it connects lazily, on the first call. */
    public ManagedChannel dial(Path socket) {
        return NettyChannelBuilder.forAddress(UnixDomainSocketAddress.of(socket))
                .channelFactory(NioDomainSocketChannel::new)
                .eventLoopGroup(workers)
                .overrideAuthority(AUTHORITY)
                .usePlaintext()
                .directExecutor()
                .build();
    }

    /** Stops a server and removes its socket file. */
    public static void stop(Server server, Path socket) {
        server.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            throw new UncheckedIOException("could not remove socket " + socket, e);
        }
    }

    /** Closes a channel, waiting briefly for it to terminate. */
    public static void close(ManagedChannel channel) {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
