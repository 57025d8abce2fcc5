package dev.kgpu.plugin.dra;

import java.io.IOException;

/**
 * The kubelet, as the DRA driver uses it: the DRA service ({@code NodePrepareResources}, {@code NodeUnprepareResources})
 * on its socket in the driver's folder, and the registration service ({@code GetInfo},
 * {@code NotifyRegistrationStatus}) on a socket in the kubelet's plugin-watcher folder, which the kubelet finds and
 * registers; and the PodResources API, where the kubelet lists what its device manager allocated to running pods. The
 * gRPC adapter ({@code dev.kgpu.plugin.dra.grpc.GrpcDraKubelet}) implements it. Only the node's thread calls
 * {@link #serve}; {@link #deviceAllocations} is called from the driver's poller thread.
 */
public interface DraKubelet extends AutoCloseable {

    /**
     * Serves {@code claims} on the DRA socket, then the registration service on the registration socket (the order
     * NVIDIA's helper uses, so the kubelet never finds a driver it cannot call), replacing stale socket files.
     *
     * @param registrations told of the kubelet's verdict, on a gRPC thread
     */
    Endpoint serve(ClaimPreparer claims, RegistrationListener registrations) throws IOException;

    /**
     * The kubelet's PodResources {@code List}: each running container's device-plugin devices (of every device plugin).
     *
     * @param listedAt when the call started (the report is at least as new)
     * @throws IOException when the kubelet cannot be asked (no socket, no answer), in one line
     */
    dev.kgpu.plugin.node.AllocationLedger.KubeletAllocations deviceAllocations(java.time.Instant listedAt) throws IOException;

    /** Releases the transport; endpoints must be stopped before. */
    @Override
    void close();

    /** What the kubelet says about a registration. Must not block. */
    @FunctionalInterface
    interface RegistrationListener {

        /** {@code NotifyRegistrationStatus}: registered, or refused with the kubelet's reason. */
        void registrationStatus(boolean registered, String error);
    }

    /** The two served sockets. */
    interface Endpoint {

        /** Whether both servers run and their socket files are still there. */
        boolean serving();

        /**
         * Serves the registration socket anew: the kubelet's watcher sees it created and registers the driver again
         * (after a refusal, or after the socket was deleted).
         */
        void register() throws IOException;

        /** Stops both servers and removes their sockets. Idempotent. */
        void stop();
    }
}
