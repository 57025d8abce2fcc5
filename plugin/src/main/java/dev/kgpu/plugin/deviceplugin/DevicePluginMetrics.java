package dev.kgpu.plugin.deviceplugin;

/**
 * What the device-plugin front-end counts: registrations with the kubelet and Allocate answers. The Micrometer adapter
 * ({@code dev.kgpu.plugin.app}) serves them at {@code /q/metrics}. Implementations must be thread-safe and must not
 * block.
 */
public interface DevicePluginMetrics {

    DevicePluginMetrics NONE = new DevicePluginMetrics() {
    };

    /** The kubelet answered a registration of {@code resource}. */
    default void registration(String resource, boolean accepted) {
    }

    /** An Allocate for one container of {@code resource} was answered. */
    default void allocation(String resource, boolean allocated) {
    }
}
