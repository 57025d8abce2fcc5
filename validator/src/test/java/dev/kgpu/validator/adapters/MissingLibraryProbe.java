package dev.kgpu.validator.adapters;

import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.validator.core.ComponentFailure;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Run in a fresh JVM by {@link MissingLibraryTest}: probes the driver with no explicit library and the
 * driver root given as the first argument, and prints the failure's layer and reason (or PASSED).
 */
public final class MissingLibraryProbe {

    private MissingLibraryProbe() {
    }

    public static void main(String[] args) {
        try {
            new NvmlGpuDriver(new NvmlOptions(Optional.empty(), Path.of(args[0]))).probe();
            System.out.println("PASSED");
        } catch (ComponentFailure e) {
            System.out.println(e.layer() + ": " + e.reason());
        }
    }
}
