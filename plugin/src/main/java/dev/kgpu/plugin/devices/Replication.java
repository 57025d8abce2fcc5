package dev.kgpu.plugin.devices;

/** Whether a resource's devices are shared, and how. */
public sealed interface Replication {

    Replication NONE = new None();

    /** Each device is listed once and given to one container. */
    record None() implements Replication {
    }

    /**
     * Each device is listed as {@code replicas} annotated IDs.
     *
     * @param mps                        MPS (true) or time-slicing (false)
     * @param replicas                   shares per device, at least 2
     * @param failRequestsGreaterThanOne reject a container asking for more than one replica
     */
    record Shared(boolean mps, int replicas, boolean failRequestsGreaterThanOne) implements Replication {
        public Shared {
            if (replicas < 2) {
                throw new IllegalArgumentException("replicas was '" + replicas + "' but it must be at least 2");
            }
        }
    }
}
