package dev.kgpu.exporter.metrics;

import java.util.Optional;

/**
 * What one series is about: a whole GPU, or one GPU instance of a MIG-enabled GPU (dcgm-exporter's
 * "flex" mode: a GPU with MIG on is watched as its GPU instances only). GPU-instance series carry the
 * parent GPU's index, UUID, bus id and model, as dcgm-exporter prints them.
 *
 * @param gpuIndex    NVML index of the GPU (DCGM's gpu id on a node without hidden GPUs)
 * @param gpuUuid     the GPU's UUID
 * @param pciBusId    NVML's bus id form, {@code 00000000:3B:00.0}
 * @param modelName   NVML's product name
 * @param gpuInstance present for a GPU instance
 */
public record Entity(int gpuIndex, String gpuUuid, String pciBusId, String modelName,
                     Optional<GpuInstance> gpuInstance) {

    public Entity {
        if (gpuIndex < 0 || gpuUuid == null || pciBusId == null || modelName == null || gpuInstance == null) {
            throw new IllegalArgumentException("an entity needs a GPU index, UUID, bus id and model name");
        }
    }

    public static Entity gpu(int gpuIndex, String gpuUuid, String pciBusId, String modelName) {
        return new Entity(gpuIndex, gpuUuid, pciBusId, modelName, Optional.empty());
    }

    public Entity instance(int gpuInstanceId, String profile) {
        return new Entity(gpuIndex, gpuUuid, pciBusId, modelName,
                Optional.of(new GpuInstance(gpuInstanceId, profile)));
    }

    /** {@code nvidia<index>}, dcgm-exporter's {@code device} label. */
    public String device() {
        return "nvidia" + gpuIndex;
    }

    public boolean isGpuInstance() {
        return gpuInstance.isPresent();
    }

    /** A GPU instance: its NVML GPU-instance id and its profile name, e.g. {@code 3g.40gb}. */
    public record GpuInstance(int id, String profile) {
    }
}
