package dev.kgpu.plugin.devices;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What NVML says about a GPU beyond what the device plugin needs, in the words NVIDIA's DRA driver publishes it
 * (go-nvlib's {@code Get*AsString}). Immutable.
 *
 * @param brand                 e.g. {@code Nvidia}, {@code Tesla}, {@code GeForce}
 * @param architecture          e.g. {@code Hopper}, {@code Ampere}, {@code Ada Lovelace}
 * @param cudaComputeCapability {@code <major>.<minor>}, e.g. {@code 9.0}
 * @param memoryBytes           total framebuffer memory; empty when NVML does not report it
 */
public record GpuDetails(String brand, String architecture, String cudaComputeCapability, OptionalLong memoryBytes) {

    /** Nothing known (tests and callers that only serve the device-plugin API). */
    public static final GpuDetails UNKNOWN = new GpuDetails("Unknown", "Unknown", "0.0", OptionalLong.empty());

    public GpuDetails {
        Objects.requireNonNull(brand, "brand");
        Objects.requireNonNull(architecture, "architecture");
        Objects.requireNonNull(cudaComputeCapability, "cudaComputeCapability");
        Objects.requireNonNull(memoryBytes, "memoryBytes");
    }
}
