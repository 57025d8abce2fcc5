package dev.kgpu.plugin.deviceplugin.grpc;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.plugin.deviceplugin.DevicePluginMetrics;
import dev.kgpu.plugin.deviceplugin.Kubelet;
import dev.kgpu.plugin.deviceplugin.ResourceService;
import io.grpc.Server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One resource's gRPC server on its Unix socket ({@code nvidia-<name>.sock}) in the device-plugins
 * directory. Started and stopped only by the node's thread.
 */
final class ResourceServer implements Kubelet.Endpoint {

    private final ResourceService service;
    private final Path socket;
    private Server server;

    private ResourceServer(ResourceService service, Path socket) {
        this.service = service;
        this.socket = socket;
    }

    /** Serves {@code service} on its socket in {@code socketDirectory}, replacing a stale socket file. */
    static ResourceServer start(UnixSocketTransport transport, Path socketDirectory, ResourceService service,
                                DevicePluginMetrics metrics) throws IOException {
        ResourceServer started = new ResourceServer(service, socketDirectory.resolve(service.resource().socketName()));
        started.server = transport.serve(started.socket, null, List.of(new DevicePluginService(service, metrics)));
        return started;
    }

    @Override
    public String resourceName() {
        return service.resource().name();
    }

    @Override
    public String socketName() {
        return socket.getFileName().toString();
    }

    @Override
    public boolean serving() {
        return server != null && !server.isShutdown() && Files.exists(socket);
    }

    @Override
    public void stop() {
        if (server != null) {
            UnixSocketTransport.stop(server, socket);
            server = null;
        }
    }
}
