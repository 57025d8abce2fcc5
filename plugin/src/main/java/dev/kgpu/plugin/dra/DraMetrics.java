package dev.kgpu.plugin.dra;

/**
 * What the DRA driver counts: the claims it answered and its ResourceSlice publications. The Micrometer adapter
 * ({@code dev.kgpu.plugin.app}) serves them at {@code /q/metrics}. Implementations must be thread-safe and must not
 * block.
 */
public interface DraMetrics {

    DraMetrics NONE = new DraMetrics() {
    };

    /** A claim of a NodePrepareResources ({@code prepare}) or NodeUnprepareResources ({@code unprepare}) was answered. */
    default void claim(String operation, boolean success) {
    }

    /** A claim's MPS control daemon that had stopped was started again ({@code success}), or a restart failed. */
    default void mpsDaemonRestarted(boolean success) {
    }

    /** The node's ResourceSlices were brought up to date, or an attempt failed. */
    default void resourceSlicesPublished(boolean success) {
    }
}
