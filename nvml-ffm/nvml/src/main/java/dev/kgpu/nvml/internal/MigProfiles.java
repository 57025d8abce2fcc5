package dev.kgpu.nvml.internal;

/**
 * NVIDIA's canonical MIG profile names, computed the way go-nvlib's {@code MigProfileInfo.String()} and
 * the k8s-device-plugin name them: {@code <G>g.<M>gb} when the compute instance spans its GPU instance,
 * {@code <C>c.<G>g.<M>gb} otherwise, followed by the attribute suffix that the GPU-instance profile
 * implies ({@code +me}, {@code -me}, {@code +me.all}, {@code +gfx}).
 *
 * <p>GPU-instance profiles are NVML's {@code NVML_GPU_INSTANCE_PROFILE_*} values: the index passed to
 * {@code nvmlDeviceGetGpuInstanceProfileInfo}, not the {@code id} that call returns.
 *
 * <p>Thread-safety: stateless.
 */
final class MigProfiles {

    /** One past the largest {@code NVML_GPU_INSTANCE_PROFILE_*} that current drivers define (…_2_SLICE_ALL_ME). */
    static final int GPU_INSTANCE_PROFILE_COUNT = 17;

    private static final long MIB = 1024L * 1024L;
    private static final long GIB = 1024L * MIB;

    private MigProfiles() {
    }

    /** Slices of a GPU-instance profile, or 0 for a profile this table does not know. */
    static int gpuInstanceSlices(int profile) {
        return switch (profile) {
            case 0, 7, 9, 10, 13, 15 -> 1;   // 1_SLICE, _REV1, _REV2, _GFX, _NO_ME, _ALL_ME
            case 1, 8, 11, 14, 16 -> 2;      // 2_SLICE, _REV1, _GFX, _NO_ME, _ALL_ME
            case 2 -> 3;
            case 3, 12 -> 4;                 // 4_SLICE, _GFX
            case 6 -> 6;
            case 4 -> 7;
            case 5 -> 8;
            default -> 0;
        };
    }

    /** The attribute suffix a GPU-instance profile adds to the name. */
    static String suffix(int profile) {
        return switch (profile) {
            case 7, 8 -> "+me";          // 1_SLICE_REV1, 2_SLICE_REV1: media extensions
            case 15, 16 -> "+me.all";    // 1_SLICE_ALL_ME, 2_SLICE_ALL_ME
            case 10, 11, 12 -> "+gfx";   // graphics-capable profiles
            case 13, 14 -> "-me";        // 1_SLICE_NO_ME, 2_SLICE_NO_ME
            default -> "";
        };
    }

    /**
     * The {@code <M>} of a profile name: the MIG device's memory as a fraction of the whole GPU's, rounded
     * up to eighths, times the GPU's memory in whole GiB (rounded up), rounded to the nearest integer.
     * So a 1-slice instance of 4864 MiB on a 40 GiB A100 is {@code 5gb}, one of 9856 MiB on an H100 with
     * 81559 MiB is {@code 10gb}.
     */
    static long memoryGb(long deviceMemoryBytes, long migMemoryMiB) {
        if (deviceMemoryBytes <= 0) {
            throw new IllegalArgumentException("device memory was '" + deviceMemoryBytes + "' but it must be positive");
        }
        double fraction = (double) migMemoryMiB * MIB / (double) deviceMemoryBytes;
        fraction = Math.ceil(fraction * 8) / 8;
        double deviceGb = (double) ((deviceMemoryBytes + GIB - 1) / GIB);
        return Math.round(fraction * deviceGb);
    }

    /** The canonical name, e.g. {@code 1g.10gb}, {@code 1c.2g.20gb} or {@code 1g.10gb+me}. */
    static String name(int computeSlices, int gpuSlices, long memoryGb, String suffix) {
        String base = computeSlices == gpuSlices
                ? gpuSlices + "g." + memoryGb + "gb"
                : computeSlices + "c." + gpuSlices + "g." + memoryGb + "gb";
        return base + suffix;
    }
}
