package dev.kgpu.plugin.node;

import dev.kgpu.plugin.health.HealthTransition;

/**
 * What the node runtime counts: health transitions. The Micrometer adapter ({@code dev.kgpu.plugin.app}) serves them
 * at {@code /q/metrics}. Implementations must be thread-safe and must not block.
 */
public interface NodeMetrics {

    NodeMetrics NONE = new NodeMetrics() {
    };

    /** A device changed health. */
    default void healthTransition(HealthTransition transition) {
    }
}
