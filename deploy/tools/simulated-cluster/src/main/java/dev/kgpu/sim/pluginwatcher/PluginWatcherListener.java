package dev.kgpu.sim.pluginwatcher;

/**
 * Observes a {@link PluginWatcher}, on its registration thread, in order. Must not block for long (the next
 * registration waits).
 */
public interface PluginWatcherListener {

    /** A registration was attempted: registered, or refused with the error the plugin was told. */
    default void onRegistration(PluginRegistration registration) {
    }

    /** The last socket of driver {@code name} was deleted: the kubelet forgets the driver. */
    default void onDeregistration(String name) {
    }
}
