package dev.kgpu.discovery.labels;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one labelling pass saw on the node, read once and then labelled without further I/O.
 *
 * @param driver      the driver and CUDA versions, empty when NVML could not be used (driver not ready)
 * @param gpus        every GPU NVML lists, in NVML index order (empty when NVML could not be used)
 * @param machineType the first line of the machine-type file, trimmed, or {@code unknown}
 * @param vgpu        what the PCI configuration space says about vGPU host drivers
 */
public record NodeSnapshot(Optional<DriverVersions> driver, List<Gpu> gpus, String machineType, VgpuScan vgpu) {

    /** The machine type GFD labels when the machine-type file cannot be read. */
    public static final String UNKNOWN_MACHINE = "unknown";

    public NodeSnapshot {
        Objects.requireNonNull(driver, "driver");
        gpus = List.copyOf(gpus);
        Objects.requireNonNull(machineType, "machineType");
        Objects.requireNonNull(vgpu, "vgpu");
        if (driver.isEmpty() && !gpus.isEmpty()) {
            throw new IllegalArgumentException("gpus was '" + gpus.size() + " GPUs' but it must be empty when no driver was read");
        }
    }

    /** A node whose NVML could not be opened: no driver, no GPUs. */
    public static NodeSnapshot withoutNvml(String machineType, VgpuScan vgpu) {
        return new NodeSnapshot(Optional.empty(), List.of(), machineType, vgpu);
    }
}
