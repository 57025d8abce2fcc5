package dev.kgpu.plugin.devices;

/**
 * The GPUs' compute modes, read and set through the driver (NVML's {@code nvmlDeviceGetComputeMode} and
 * {@code nvmlDeviceSetComputeMode}): MPS puts each GPU it shares in {@link Mode#EXCLUSIVE_PROCESS} and gives it back
 * its own mode when it stops. Setting needs root and is refused on MIG-enabled GPUs. Thread-safe where the source is.
 */
public interface ComputeModes {

    /** {@code nvmlComputeMode_t}. */
    enum Mode {
        DEFAULT, EXCLUSIVE_THREAD, PROHIBITED, EXCLUSIVE_PROCESS
    }

    /**
     * The GPU's mode now.
     *
     * @throws DeviceSourceException when the driver does not answer, or the GPU has no compute modes
     */
    Mode get(String gpuUuid);

    /**
     * Sets the GPU's mode.
     *
     * @throws DeviceSourceException with the driver's refusal
     */
    void set(String gpuUuid, Mode mode);
}
