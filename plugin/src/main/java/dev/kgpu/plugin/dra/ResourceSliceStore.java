package dev.kgpu.plugin.dra;

/**
 * The API server's ResourceSlices of this node, as the publisher uses them. The fabric8 adapter
 * ({@code dev.kgpu.plugin.dra.kubernetes.KubernetesResourceSlices}) implements it; tests may use an in-memory one.
 * Called from one thread at a time.
 */
public interface ResourceSliceStore {

    /**
     * Makes the node's slices of {@code pool}'s driver hold exactly {@code pool}'s devices: nothing when they already
     * do; otherwise the pool's generation goes up by one, existing slices are updated, missing ones created and
     * surplus ones deleted.
     *
     * @throws SliceStoreException when the API server cannot be reached or refuses (the caller retries)
     */
    Published sync(ResourcePool pool) throws SliceStoreException;

    /**
     * Tells {@code changed} whenever a slice of {@code driver} on {@code nodeName} is added, changed or deleted in the
     * API server, whoever did it (the driver's own writes too), until the answer is closed; empty when the store
     * cannot watch (no permission, no API server), said in the reason.
     */
    Watch watch(String driver, String nodeName, Runnable changed);

    /** A running watch of the node's slices, or why there is none. */
    interface Watch extends AutoCloseable {

        /** Why nothing is watched; empty while it runs. */
        java.util.Optional<String> problem();

        @Override
        void close();

        /** No watch, because of {@code reason}. */
        static Watch none(String reason) {
            return new Watch() {
                @Override
                public java.util.Optional<String> problem() {
                    return java.util.Optional.of(reason);
                }

                @Override
                public void close() {
                }
            };
        }
    }

    /**
     * What the node's slices say after a sync.
     *
     * @param generation the pool's generation
     * @param slices     how many slices hold it
     * @param changed    whether this sync wrote anything
     */
    record Published(long generation, int slices, boolean changed) {
    }
}
