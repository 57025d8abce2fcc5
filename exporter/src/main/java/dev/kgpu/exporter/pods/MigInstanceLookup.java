package dev.kgpu.exporter.pods;

import java.util.Optional;

/** Finds the GPU instance a {@code MIG-…} UUID belongs to (from the last collection's NVML reading). */
@FunctionalInterface
public interface MigInstanceLookup {

    /** The GPU index and GPU-instance id of this MIG device, or empty when NVML does not know it. */
    Optional<GpuInstanceKey> find(String migUuid);

    /** Where a MIG device lives. */
    record GpuInstanceKey(int gpuIndex, int gpuInstanceId) {

        /** dcgm-exporter's key for a GPU instance: {@code <gpu index>-<GPU-instance id>}. */
        public String key() {
            return gpuIndex + "-" + gpuInstanceId;
        }
    }
}
