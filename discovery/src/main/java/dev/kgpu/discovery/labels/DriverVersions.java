package dev.kgpu.discovery.labels;

import java.util.Objects;

/**
 * The kernel driver's version string ({@code nvmlSystemGetDriverVersion}, e.g. {@code 550.54.15}) and
 * the CUDA version the driver supports ({@code nvmlSystemGetCudaDriverVersion}, e.g. 12.4).
 */
public record DriverVersions(String driverVersion, int cudaMajor, int cudaMinor) {

    public DriverVersions {
        Objects.requireNonNull(driverVersion, "driverVersion");
        if (cudaMajor < 0 || cudaMinor < 0) {
            throw new IllegalArgumentException("CUDA version was '%d.%d' but its parts must not be negative"
                    .formatted(cudaMajor, cudaMinor));
        }
    }
}
