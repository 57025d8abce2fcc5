package dev.kgpu.nvml;

/**
 * What a MIG device is made of.
 *
 * <p>{@code name} follows NVIDIA's canonical form: {@code <G>g.<M>gb} when the compute instance spans the
 * whole GPU instance ({@code 1g.10gb}), {@code <C>c.<G>g.<M>gb} otherwise ({@code 1c.2g.20gb}), with the
 * GPU-instance profile's attribute suffix ({@code +me}, {@code -me}, {@code +me.all}, {@code +gfx}) where
 * the profile has one. Memory in the name is the MIG memory size rounded as NVIDIA rounds it.
 *
 * @param name                  the canonical name, e.g. {@code 1g.10gb}, {@code 1c.2g.20gb}, {@code 1g.10gb+me}
 * @param gpuInstanceProfileId  the GPU-instance profile as NVML's {@code NVML_GPU_INSTANCE_PROFILE_*} constant
 *                              (0 for {@code 1_SLICE}, 7 for {@code 1_SLICE_REV1}, ...), which go-nvlib calls
 *                              {@code GIProfileID}; not the {@code id} that nvidia-smi lists
 * @param gpuInstanceSlices     the {@code <G>}: GPU slices of the GPU instance
 * @param computeInstanceSlices the {@code <C>}: GPU slices of the compute instance
 * @param memoryMiB             memory of the MIG device ({@code nvmlDeviceAttributes_t.memorySizeMB})
 */
public record MigProfile(
        String name,
        int gpuInstanceProfileId,
        int gpuInstanceSlices,
        int computeInstanceSlices,
        long memoryMiB,
        int multiprocessorCount,
        int copyEngineCount,
        int decoderCount,
        int encoderCount,
        int jpegCount,
        int ofaCount) {

    public MigProfile {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("MIG profile name was '" + name + "' but it must not be blank");
        }
        if (gpuInstanceSlices <= 0 || computeInstanceSlices <= 0 || computeInstanceSlices > gpuInstanceSlices) {
            throw new IllegalArgumentException("MIG profile '%s' has %d compute slices in %d GPU slices"
                    .formatted(name, computeInstanceSlices, gpuInstanceSlices));
        }
    }
}
