package dev.kgpu.plugin.devices;

import java.util.Objects;

/**
 * The node's driver, as NVML reports it. Immutable.
 *
 * @param version           the kernel driver's version, e.g. {@code 550.54.15}
 * @param cudaDriverVersion the CUDA version it supports, {@code <major>.<minor>}, e.g. {@code 12.4}
 */
public record DriverInfo(String version, String cudaDriverVersion) {

    /** Not known (tests and callers that only serve the device-plugin API). */
    public static final DriverInfo UNKNOWN = new DriverInfo("0.0.0", "0.0");

    public DriverInfo {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(cudaDriverVersion, "cudaDriverVersion");
    }
}
