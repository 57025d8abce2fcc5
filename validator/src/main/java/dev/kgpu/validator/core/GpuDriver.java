package dev.kgpu.validator.core;

/**
 * The node's NVIDIA driver as NVML shows it. The adapter opens NVML, asks every GPU for its identity and
 * closes NVML again, so each probe sees the driver as it is now.
 */
public interface GpuDriver {

    /**
     * Reads the driver and every GPU.
     *
     * @throws ComponentFailure with {@link Layer#DRIVER} when the library is missing, the driver is not
     *                           loaded or any GPU does not answer
     */
    DriverSnapshot probe();
}
