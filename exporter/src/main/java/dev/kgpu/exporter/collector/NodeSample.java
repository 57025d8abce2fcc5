package dev.kgpu.exporter.collector;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One collection's reading of the node: node-wide strings and every GPU.
 *
 * @param takenAt       when the read finished
 * @param driverVersion the kernel driver's version ({@code DCGM_FI_DRIVER_VERSION})
 * @param nvmlVersion   NVML's version ({@code DCGM_FI_NVML_VERSION})
 * @param gpus          every GPU in index order
 */
public record NodeSample(Instant takenAt, String driverVersion, String nvmlVersion, List<GpuSample> gpus) {

    public NodeSample {
        gpus = List.copyOf(gpus);
    }

    /** The GPU-instance entity holding the MIG device with this {@code MIG-…} UUID. */
    public Optional<dev.kgpu.exporter.metrics.Entity> gpuInstanceOfMig(String migUuid) {
        for (GpuSample gpu : gpus) {
            for (GpuInstanceSample instance : gpu.gpuInstances()) {
                if (instance.migUuids().contains(migUuid)) {
                    return Optional.of(gpu.entityOf(instance));
                }
            }
        }
        return Optional.empty();
    }

    /** The GPU with this UUID. */
    public Optional<GpuSample> gpu(String uuid) {
        return gpus.stream().filter(g -> g.gpu().gpuUuid().equals(uuid)).findFirst();
    }
}
