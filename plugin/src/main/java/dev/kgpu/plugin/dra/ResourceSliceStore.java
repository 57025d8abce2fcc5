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
     * What the node's slices say after a sync.
     *
     * @param generation the pool's generation
     * @param slices     how many slices hold it
     * @param changed    whether this sync wrote anything
     */
    record Published(long generation, int slices, boolean changed) {
    }
}
