package dev.kgpu.plugin.resources;

import dev.kgpu.plugin.health.HealthTransition;

/**
 * What the plugin did, for metrics and logs. Implementations must be thread-safe and must not block.
 */
public interface PluginEvents {

    PluginEvents NONE = new PluginEvents() {
    };

    /** A registration with the kubelet was answered; {@code error} is null on success. */
    default void registration(String resource, String error) {
    }

    /** An Allocate for one container was answered; {@code error} is null on success. */
    default void allocation(String resource, int devices, String error) {
    }

    /** A device changed health. */
    default void healthTransition(HealthTransition transition) {
    }
}
