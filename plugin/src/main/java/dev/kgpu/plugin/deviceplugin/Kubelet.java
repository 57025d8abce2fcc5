package dev.kgpu.plugin.deviceplugin;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * The kubelet, as the device-plugin front-end uses it: each resource is served on a socket in the device-plugins
 * folder and registered, and the folder reports kubelet restarts and deleted sockets. The gRPC adapter
 * ({@code dev.kgpu.plugin.deviceplugin.grpc.GrpcKubelet}) implements it. Only the node's thread calls it.
 */
public interface Kubelet extends AutoCloseable {

    /** Serves {@code service} on its socket, replacing a stale socket file. */
    Endpoint serve(ResourceService service) throws IOException;

    /** Whether resources are registered at all: not when no kubelet socket is configured (serve only). */
    boolean registers();

    /** Registers a served resource; the kubelet dials it back before it answers. */
    Registration register(Endpoint endpoint);

    /**
     * Reports changes in the device-plugins folder to {@code changes}, in order, on a thread of its own, until
     * closed; when resources are registered and {@code kubelet.sock} does not exist yet, first
     * {@link Change.KubeletStopped}.
     */
    void watch(Consumer<Change> changes) throws IOException;

    /** Stops watching and releases the transport; endpoints must be stopped before. */
    @Override
    void close();

    /** One resource served on its socket. */
    interface Endpoint {

        /** e.g. {@code nvidia.com/gpu}. */
        String resourceName();

        /** The socket's file name in the device-plugins folder, e.g. {@code nvidia-gpu.sock}. */
        String socketName();

        /** Whether the server runs and its socket file is still there. */
        boolean serving();

        /** Stops serving (open ListAndWatch streams end) and removes the socket file. Idempotent. */
        void stop();
    }

    /** The kubelet's answer to a registration. */
    sealed interface Registration {

        /** Registered: the kubelet opens ListAndWatch. */
        record Accepted() implements Registration {
        }

        /** No kubelet to ask: its socket does not exist (it is not running, or restarting). */
        record NoKubelet(String reason) implements Registration {
        }

        /** The kubelet refused, or did not answer. */
        record Refused(String reason) implements Registration {
        }
    }

    /** What happened in the device-plugins folder. */
    sealed interface Change {

        /** {@code kubelet.sock} was created: the kubelet (re)started. Also reported when changes were lost. */
        record KubeletStarted() implements Change {
        }

        /**
         * {@code kubelet.sock} was deleted, or does not exist yet: a kubelet that starts deletes every socket,
         * then creates {@code kubelet.sock}.
         */
        record KubeletStopped() implements Change {
        }

        /** Another file was deleted; it may be one of the plugin's sockets. */
        record SocketDeleted(String name) implements Change {
        }
    }
}
