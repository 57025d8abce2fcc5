package dev.kgpu.nvml;

/**
 * What a MIG device is made of.
 *
 * <p>{@code name} follows NVIDIA's canonical form: {@code <G>g.<M>gb} when the compute instance spans the
 * whole GPU instance ({@code 1g.10gb}), {@code <C>c.<G>g.<M>gb} otherwise ({@code 1c.2g.20gb}), with the
 * GPU-instance profile's attribute suffix ({@code +me}, {@code -me}, {@code +me.all}, {@code +gfx}) where
 * the profile has one. Memory in the name is the MIG memory size rounded as NVIDIA rounds it.
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
