package dev.kgpu.plugin.devices;

import java.util.List;

/**
 * Where devices come from: NVML in production ({@code dev.kgpu.plugin.nvml}), anything in tests.
 * The node runtime opens a source when it first reads the devices, keeps it open while they are served
 * (health probes and events go through it), and closes it when the devices cannot be read or it stops.
 */
public interface DeviceSource extends AutoCloseable {

    /** The node's GPUs, MIG devices and links now. @throws DeviceSourceException when the driver does not answer */
    NodeInventory inventory();

    /** Asks the driver whether a device answers. */
    DeviceProbe probe();

    /**
     * Starts watching {@code devices} for health events, delivered to {@code events} on the source's own
     * thread. @throws DeviceSourceException when the watch cannot start
     */
    Watch watch(List<PhysicalDevice> devices, DeviceEvents events);

    /**
     * The GPUs' compute modes, through this source's driver session (MPS sets them).
     *
     * @throws DeviceSourceException when this source cannot read or set them
     */
    default ComputeModes computeModes() {
        throw new DeviceSourceException("this device source cannot set compute modes", null);
    }

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
