package dev.kgpu.nvml;

/**
 * {@code nvmlDeviceArchitecture_t}. NVML 12.4 knows up to Hopper (9); newer drivers report Blackwell as 10.
 * Values this list does not know read as {@link #UNKNOWN}.
 */
public enum Architecture {
    KEPLER(2), MAXWELL(3), PASCAL(4), VOLTA(5), TURING(6), AMPERE(7), ADA(8), HOPPER(9), BLACKWELL(10),
    UNKNOWN(0xFFFFFFFF);

    private final int nvmlValue;

    Architecture(int nvmlValue) {
        this.nvmlValue = nvmlValue;
    }

    public int nvmlValue() {
        return nvmlValue;
    }

    public static Architecture fromNvml(int value) {
        for (Architecture architecture : values()) {
            if (architecture.nvmlValue == value) {
                return architecture;
            }
        }
        return UNKNOWN;
    }
}
