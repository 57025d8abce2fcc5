package dev.kgpu.nvml;

/** CUDA compute capability, e.g. 8.0 for A100 or 9.0 for H100. */
public record ComputeCapability(int major, int minor) {

    public ComputeCapability {
        if (major < 0 || minor < 0) {
            throw new IllegalArgumentException("compute capability was '%d.%d' but its parts must not be negative"
                    .formatted(major, minor));
        }
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
