package dev.kgpu.exporter.config;

import dev.kgpu.config.v1.WireValue;

/**
 * How the device plugin names whole GPUs in the kubelet's pod resources
 * ({@code DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE}).
 */
public enum GpuIdType implements WireValue {
    /** The GPU's UUID, {@code GPU-...} (NVIDIA's device plugin default). */
    UID("uid"),
    /** {@code nvidia<index>} (GKE's device plugin). */
    DEVICE_NAME("device-name");

    private final String wireName;

    GpuIdType(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }
}
