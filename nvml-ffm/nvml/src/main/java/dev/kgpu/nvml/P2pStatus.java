package dev.kgpu.nvml;

/**
 * {@code nvmlGpuP2PStatus_t}. {@link #label()} is dcgm-exporter's {@code link_status} spelling.
 */
public enum P2pStatus {
    OK(0, "OK"),
    CHIPSET_NOT_SUPPORTED(1, "ChipsetNotSupported"),
    GPU_NOT_SUPPORTED(2, "GPUNotSupported"),
    TOPOLOGY_NOT_SUPPORTED(3, "TopologyNotSupported"),
    DISABLED_BY_REGKEY(4, "DisabledByRegKey"),
    NOT_SUPPORTED(5, "NotSupported"),
    UNKNOWN(6, "Unknown");

    private final int nvmlValue;
    private final String label;

    P2pStatus(int nvmlValue, String label) {
        this.nvmlValue = nvmlValue;
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** NVML's number for this status, which dcgm-exporter prints as the value of {@code DCGM_EXP_P2P_STATUS}. */
    public int nvmlValue() {
        return nvmlValue;
    }

    public static P2pStatus fromNvml(int value) {
        for (P2pStatus status : values()) {
            if (status.nvmlValue == value) {
                return status;
            }
        }
        return UNKNOWN;
    }
}
