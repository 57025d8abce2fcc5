package dev.kgpu.plugin.lifecycle;

import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.settings.PluginSettings;

import java.util.Collection;
import java.util.List;

/**
 * The lifecycle's extension point: told, on the supervisor thread, each time the plugin starts serving a
 * set of devices under a configuration, and when it stops serving. Whatever must follow the served devices
 * besides the kubelet's device-plugin API hooks in here, e.g. writing CDI specs for them, or publishing them
 * for dynamic resource allocation. Listeners are called in order and must not block for long.
 *
 * <p>Each start of the servers calls {@link #devices} (what else the listener serves, so its health is watched too),
 * then {@link #serving}; {@link #stopped(PluginStatus.Problem)} ends it.
 */
public interface LifecycleListener {

    /** Once, before anything else: the supervisor's health tracker and its scheduler. */
    default void attached(Supervision supervision) {
    }

    /**
     * The devices this listener serves from {@code inventory} besides the device-plugin resources (e.g. MIG devices
     * the DRA driver offers while the device plugin serves whole GPUs), so that their health is watched too. Called
     * on each start of the servers, just before {@link #serving}.
     */
    default Collection<? extends PhysicalDevice> devices(PluginSettings settings, NodeInventory inventory) {
        return List.of();
    }

    /**
     * The plugin (re)started serving {@code resources}, planned from {@code inventory} under
     * {@code settings}: at start, after a kubelet restart or SIGHUP, and when the devices could be read
     * again. The kubelet servers run; registration may still be under way.
     */
    default void serving(PluginSettings settings, NodeInventory inventory, List<PluginResource> resources) {
    }

    /** The plugin serves nothing any more: the devices cannot be read, or it stops (SIGTERM). */
    default void stopped() {
    }

    /**
     * As {@link #stopped()}, saying why: {@link PluginStatus.Problem.Stopped} when the plugin stops for good (told
     * even when nothing was served), else why the devices cannot be served (the plugin retries and may serve again).
     */
    default void stopped(PluginStatus.Problem why) {
        stopped();
    }
}
