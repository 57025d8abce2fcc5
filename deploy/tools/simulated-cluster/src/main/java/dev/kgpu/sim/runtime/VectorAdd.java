package dev.kgpu.sim.runtime;

/**
 * What NVIDIA's CUDA vectorAdd sample prints, the one text every simulated run of it uses: the sample the
 * validator's plugin and cuda components run, and a container runtime's stand-in for running it.
 */
public final class VectorAdd {

    /** Its first line, whatever happens next. */
    public static final String HEADER = "[Vector addition of 50000 elements]\n";

    /** A run on a device CUDA can use: exit 0. */
    public static final String PASSED = HEADER + """
            Copy input data from the host memory to the CUDA device
            CUDA kernel launch with 196 blocks of 256 threads
            Copy output data from the CUDA device to the host memory
            Test PASSED
            Done
            """;

    /** CUDA's error when a container sees no device it can run on (none, or a GPU whose MIG mode is on). */
    public static final String NO_CUDA_DEVICE = "no CUDA-capable device is detected";

    private VectorAdd() {
    }

    /** A run whose first CUDA call failed with {@code cudaError} (CUDA's error string): exit 1. */
    public static String failed(String cudaError) {
        return HEADER + "Failed to allocate device vector A (error code " + cudaError + ")!\n";
    }
}
