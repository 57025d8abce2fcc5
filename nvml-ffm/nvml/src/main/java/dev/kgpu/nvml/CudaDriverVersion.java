package dev.kgpu.nvml;

/**
 * The CUDA version a driver supports, as {@code nvmlSystemGetCudaDriverVersion_v2} encodes it
 * ({@code 1000 * major + 10 * minor + revision}, so 12040 is 12.4).
 */
public record CudaDriverVersion(int major, int minor, int revision) {

    public CudaDriverVersion {
        if (major < 0 || minor < 0 || revision < 0) {
            throw new IllegalArgumentException("CUDA driver version was '%d.%d.%d' but its parts must not be negative"
                    .formatted(major, minor, revision));
        }
    }

    /** Decodes NVML's integer form. */
    public static CudaDriverVersion fromNvml(int encoded) {
        return new CudaDriverVersion(encoded / 1000, (encoded % 1000) / 10, encoded % 10);
    }

    /** {@code major.minor}, e.g. {@code 12.4}. */
    @Override
    public String toString() {
        return major + "." + minor;
    }
}
