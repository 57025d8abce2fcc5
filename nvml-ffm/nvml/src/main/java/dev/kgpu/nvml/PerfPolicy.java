package dev.kgpu.nvml;

/** {@code nvmlPerfPolicyType_t}: what held the clocks back, for {@link GpuDevice#violationNanos}. */
public enum PerfPolicy {
    POWER(0), THERMAL(1), SYNC_BOOST(2), BOARD_LIMIT(3), LOW_UTILIZATION(4), RELIABILITY(5);

    private final int nvmlValue;

    PerfPolicy(int nvmlValue) {
        this.nvmlValue = nvmlValue;
    }

    public int nvmlValue() {
        return nvmlValue;
    }
}
