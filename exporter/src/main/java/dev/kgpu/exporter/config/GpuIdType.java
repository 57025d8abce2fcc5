package dev.kgpu.exporter.config;

/**
 * How the device plugin names whole GPUs in the kubelet's pod resources
 * ({@code DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE}).
 */
public enum GpuIdType {
    /** The GPU's UUID, {@code GPU-...} (NVIDIA's device plugin default). */
    UID("uid"),
    /** {@code nvidia<index>} (GKE's device plugin). */
    DEVICE_NAME("device-name");

    private final String flagValue;

    GpuIdType(String flagValue) {
        this.flagValue = flagValue;
    }

    public String flagValue() {
        return flagValue;
    }

    /** The type whose flag value is {@code value}, or null. */
    static GpuIdType fromFlag(String value) {
        for (GpuIdType type : values()) {
            if (type.flagValue.equals(value)) {
                return type;
            }
        }
        return null;
    }
}
