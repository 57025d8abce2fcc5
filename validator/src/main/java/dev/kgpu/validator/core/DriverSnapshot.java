package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;

/**
 * The driver and GPUs one NVML probe saw.
 *
 * @param driverVersion kernel driver version, e.g. {@code 550.54.15}
 * @param cudaVersion   CUDA version the driver supports, e.g. {@code 12.4}
 * @param library       the {@code libnvidia-ml.so.1} that answered
 */
public record DriverSnapshot(String driverVersion, String cudaVersion, String library, List<Gpu> gpus) {

    public DriverSnapshot {
        Objects.requireNonNull(driverVersion, "driverVersion");
        Objects.requireNonNull(cudaVersion, "cudaVersion");
        Objects.requireNonNull(library, "library");
        gpus = List.copyOf(gpus);
    }

    /**
     * One physical GPU.
     *
     * @param minorNumber the {@code N} of {@code /dev/nvidiaN}
     * @param migUuids    UUIDs of the MIG devices configured on it (empty without MIG)
     */
    public record Gpu(int index, String uuid, String name, long memoryTotalBytes, int minorNumber,
                      List<String> migUuids) {
        public Gpu {
            Objects.requireNonNull(uuid, "uuid");
            Objects.requireNonNull(name, "name");
            migUuids = List.copyOf(migUuids);
        }
    }
}
