package dev.kgpu.nvml;

import java.util.Optional;

/**
 * A MIG device: one compute instance inside one GPU instance of a MIG-enabled GPU.
 *
 * <p>Thread-safety: safe for concurrent use.
 */
public interface MigDevice {

    /** The physical GPU this MIG device lives on. */
    GpuDevice parent();

    /** Index among the parent's MIG devices ({@code nvmlDeviceGetMigDeviceHandleByIndex}). */
    int index();

    /** {@code MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}. */
    String uuid();

    int gpuInstanceId();

    int computeInstanceId();

    /** The profile this device was created from, with its canonical name such as {@code 1g.10gb}. */
    MigProfile profile();

    /** Where its GPU instance sits on the GPU: profile id and memory slices ({@code nvmlGpuInstanceGetInfo}). */
    MigPlacement placement();

    /** Framebuffer memory of this MIG device now. */
    MemoryInfo memory();

    /**
     * Opens a GPM sampler for this device's GPU instance, or empty when the parent GPU has no GPM.
     */
    Optional<GpmSampler> openGpmSampler();
}
