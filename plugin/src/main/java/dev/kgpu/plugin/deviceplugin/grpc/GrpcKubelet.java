package dev.kgpu.plugin.deviceplugin.grpc;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import dev.kgpu.plugin.deviceplugin.DevicePluginMetrics;
import dev.kgpu.plugin.deviceplugin.Kubelet;
import dev.kgpu.plugin.deviceplugin.ResourceService;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The kubelet over its device-plugin API {@code v1beta1}: one gRPC server per resource on a Unix socket in
 * the device-plugins folder ({@link DevicePluginService}), {@code /v1beta1.Registration/Register} on
 * {@code kubelet.sock}, and the folder watched for kubelet restarts ({@link SocketDirectoryWatcher}), all
 * over one {@link UnixSocketTransport}.
 *
 * <p>A registration sends version {@code v1beta1}, the socket file name as endpoint and the plugin's
 * options; the kubelet dials the plugin back (up to 10 s) before it answers, so the call's deadline leaves
 * room for that. Only the node's thread calls it.
 */
public final class GrpcKubelet implements Kubelet {

    static final String VERSION = "v1beta1";
    static final Duration REGISTER_DEADLINE = Duration.ofSeconds(15);
    private static final String TRANSPORT_NAME = "plugin-grpc";

    private final Path socketDirectory;
    private final Optional<Path> kubeletSocket;
    private final DevicePluginMetrics metrics;
    private final UnixSocketTransport transport = new UnixSocketTransport(TRANSPORT_NAME, 1);
    private SocketDirectoryWatcher watcher;

    /**
     * @param socketDirectory the device-plugins folder the resources are served in
     * @param kubeletSocket   the kubelet's registration socket; empty: serve, never register
     * @param metrics         counts the Allocate calls answered
     */
    public GrpcKubelet(Path socketDirectory, Optional<Path> kubeletSocket, DevicePluginMetrics metrics) {
        this.socketDirectory = socketDirectory;
        this.kubeletSocket = kubeletSocket;
        this.metrics = metrics;
    }

    @Override
    public Endpoint serve(ResourceService service) throws IOException {
        return ResourceServer.start(transport, socketDirectory, service, metrics);
    }

    @Override
    public boolean registers() {
        return kubeletSocket.isPresent();
    }

    @Override
    public Registration register(Endpoint endpoint) {
        Path socket = kubeletSocket.orElseThrow(() -> new IllegalStateException("no kubelet socket to register with"));
        if (!Files.exists(socket)) {
            return new Registration.NoKubelet("kubelet socket " + socket + " does not exist (is the kubelet running?)");
        }
        ManagedChannel channel = transport.dial(socket);
        try {
            RegistrationGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(REGISTER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                    .register(RegisterRequest.newBuilder()
                            .setVersion(VERSION)
                            .setEndpoint(endpoint.socketName())
                            .setResourceName(endpoint.resourceName())
                            .setOptions(DevicePluginService.OPTIONS)
                            .build());
            return new Registration.Accepted();
        } catch (StatusRuntimeException e) {
            return new Registration.Refused("the kubelet refused " + endpoint.resourceName() + " on " + socket + ": "
                    + e.getStatus().getCode() + " " + e.getStatus().getDescription());
        } finally {
            UnixSocketTransport.close(channel);
        }
    }

    @Override
    public void watch(Consumer<Change> changes) throws IOException {
        String kubeletSocketName = kubeletSocket.map(p -> p.getFileName().toString()).orElse("kubelet.sock");
        watcher = SocketDirectoryWatcher.start(socketDirectory, kubeletSocketName, registers(), changes);
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        transport.close();
    }
}
