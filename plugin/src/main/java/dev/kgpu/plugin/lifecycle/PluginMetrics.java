package dev.kgpu.plugin.lifecycle;

import dev.kgpu.plugin.health.HealthTransition;

/**
 * What the plugin counts: registrations with the kubelet, Allocate answers, health transitions, DRA claims answered
 * and ResourceSlice publications. The
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

    /** A claim of a NodePrepareResources ({@code prepare}) or NodeUnprepareResources ({@code unprepare}) was answered. */
    default void claim(String operation, boolean success) {
    }

    /** The node's ResourceSlices were brought up to date, or an attempt failed. */
    default void resourceSlicesPublished(boolean success) {
    }
}
