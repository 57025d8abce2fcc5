package dev.kgpu.exporter.counters;

/** dcgm-exporter's own series ({@code DCGM_EXP_*}), which are no DCGM fields. */
public enum ExporterField {
    DCGM_EXP_XID_ERRORS_COUNT(true),
    DCGM_EXP_CLOCK_EVENTS_COUNT(true),
    /** Needs DCGM's health watches; kgpu does not serve it. */
    DCGM_EXP_GPU_HEALTH_STATUS(false),
    /** {@code nvmlDeviceGetP2PStatus(NVML_P2P_CAPS_INDEX_NVLINK)} of every pair of GPUs, as DCGM reads it. */
    DCGM_EXP_P2P_STATUS(true);

    private final boolean served;

    ExporterField(boolean served) {
        this.served = served;
    }

    public boolean served() {
        return served;
    }

    static ExporterField named(String name) {
        for (ExporterField field : values()) {
            if (field.name().equals(name)) {
                return field;
            }
        }
        return null;
    }
}
