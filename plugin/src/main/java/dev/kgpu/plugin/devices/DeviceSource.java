package dev.kgpu.plugin.devices;

import dev.kgpu.plugin.health.DeviceProbe;
import dev.kgpu.plugin.health.HealthSink;

import java.util.List;

/**
 * Where devices come from: NVML in production ({@code dev.kgpu.plugin.nvml}), anything in tests.
 * One source is opened per start of the plugin's servers and closed when they stop.
 */
public interface DeviceSource extends AutoCloseable {

    /** The node's GPUs, MIG devices and links now. @throws DeviceSourceException when the driver does not answer */
    NodeInventory inventory();

    /** Asks the driver whether a device answers. */
    DeviceProbe probe();

    /**
     * Starts watching {@code devices} for health events, delivered to {@code sink} on the source's own
     * thread. @throws DeviceSourceException when the watch cannot start
     */
    Watch watch(List<PhysicalDevice> devices, HealthSink sink);

    @Override
    void close();

    /** A running health watch. */
    interface Watch extends AutoCloseable {
        @Override
        void close();
    }

    /** Opens a source. @throws DeviceSourceException when the driver cannot be reached */
    @FunctionalInterface
    interface Factory {
        DeviceSource open();
    }
}
