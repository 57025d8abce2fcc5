package dev.kgpu.plugin.lifecycle;

import dev.kgpu.plugin.health.HealthTransition;

/**
 * What the plugin counts: registrations with the kubelet, Allocate answers and health transitions. The
 * Micrometer adapter ({@code dev.kgpu.plugin.app}) serves them at {@code /q/metrics}. Implementations must
 * be thread-safe and must not block.
 */
public interface PluginMetrics {

    PluginMetrics NONE = new PluginMetrics() {
    };

    /** The kubelet answered a registration of {@code resource}. */
    default void registration(String resource, boolean accepted) {
    }

    /** An Allocate for one container of {@code resource} was answered. */
    default void allocation(String resource, boolean allocated) {
    }

    /** A device changed health. */
    default void healthTransition(HealthTransition transition) {
    }
}
