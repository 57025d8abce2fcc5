package dev.kgpu.nvml;

/** {@code nvmlBrandType_t}. Values NVML adds later than this list read as {@link #UNKNOWN}. */
public enum Brand {
    UNKNOWN(0), QUADRO(1), TESLA(2), NVS(3), GRID(4), GEFORCE(5), TITAN(6),
    NVIDIA_VAPPS(7), NVIDIA_VPC(8), NVIDIA_VCS(9), NVIDIA_VWS(10), NVIDIA_CLOUD_GAMING(11),
    QUADRO_RTX(12), NVIDIA_RTX(13), NVIDIA(14), GEFORCE_RTX(15), TITAN_RTX(16);

    private final int nvmlValue;

    Brand(int nvmlValue) {
        this.nvmlValue = nvmlValue;
    }

    public int nvmlValue() {
        return nvmlValue;
    }

    public static Brand fromNvml(int value) {
        for (Brand brand : values()) {
            if (brand.nvmlValue == value) {
                return brand;
            }
        }
        return UNKNOWN;
    }
}
