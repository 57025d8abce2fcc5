package dev.kgpu.plugin.lifecycle;

import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.settings.PluginSettings;

import java.util.List;

/**
 * The lifecycle's extension point: told, on the supervisor thread, each time the plugin starts serving a
 * set of devices under a configuration, and when it stops serving. Whatever must follow the served devices
 * besides the kubelet's device-plugin API hooks in here, e.g. writing CDI specs for them, or publishing them
 * for dynamic resource allocation. Listeners are called in order and must not block for long.
 */
public interface LifecycleListener {

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
}
