package dev.kgpu.nvml;

/**
 * Where a MIG device's GPU instance sits on its GPU ({@code nvmlGpuInstanceInfo_t}): the GPU-instance profile as
 * {@code nvidia-smi mig -lgip} lists it ({@code ID} 19 for {@code 1g.10gb} on an A100, the {@code id} of
 * {@code nvmlGpuInstanceProfileInfo_t}, which NVIDIA's DRA driver calls the profile ID; not the
 * {@code NVML_GPU_INSTANCE_PROFILE_*} constant of {@link MigProfile#gpuInstanceProfileId()}), and the memory slices it
 * occupies, {@code start} to {@code start + size - 1}.
 *
 * @param profileId the GPU instance's profile id, as {@code nvidia-smi} lists it
 * @param start     the first memory slice
 * @param size      the number of memory slices
 */
public record MigPlacement(int profileId, int start, int size) {

    public MigPlacement {
        if (start < 0 || size <= 0) {
            throw new IllegalArgumentException("MIG placement was '%d+%d' but it must start at 0 or later and span at least one slice"
                    .formatted(start, size));
        }
    }
}
