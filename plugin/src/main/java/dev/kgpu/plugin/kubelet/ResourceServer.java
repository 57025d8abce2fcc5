package dev.kgpu.plugin.kubelet;

import dev.kgpu.plugin.resources.ResourceService;
import io.grpc.Server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One resource's gRPC server on its Unix socket ({@code nvidia-<name>.sock}) in the device-plugins
 * directory. Started and stopped only by the supervisor thread.
 */
public final class ResourceServer {

    private final UnixSocketTransport transport;
    private final ResourceService service;
    private final Path socket;
    private Server server;

    public ResourceServer(UnixSocketTransport transport, Path socketDirectory, ResourceService service) {
        this.transport = transport;
        this.service = service;
        this.socket = socketDirectory.resolve(service.resource().socketName());
    }

    public ResourceService service() {
        return service;
    }

    public Path socket() {
        return socket;
    }

    /** Serves on the socket, replacing a stale socket file. */
    public void start() throws IOException {
        if (server != null) {
            throw new IllegalStateException(socket + " is already served");
        }
        server = transport.serve(socket, null, List.of(new DevicePluginService(service)));
    }

    /** Whether the server runs and its socket file is still there. */
    public boolean serving() {
        return server != null && !server.isShutdown() && Files.exists(socket);
    }

    public boolean started() {
        return server != null;
    }

    /** Stops serving (open ListAndWatch streams end) and removes the socket file. Idempotent. */
    public void stop() {
        if (server != null) {
            UnixSocketTransport.stop(server, socket);
            server = null;
        }
    }
}
