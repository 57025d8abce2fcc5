package dev.kgpu.nvml;

import java.util.EnumSet;
import java.util.Set;

/**
 * Why the clocks are held below their maximum ({@code nvmlClocksEventReason*} bits). The lower-case
 * {@link #label()} is what dcgm-exporter prints in {@code clock_event}.
 */
public enum ClockEventReason {
    GPU_IDLE(0x1L, "gpu_idle"),
    CLOCKS_SETTING(0x2L, "clocks_setting"),
    POWER_CAP(0x4L, "power_cap"),
    HW_SLOWDOWN(0x8L, "hw_slowdown"),
    SYNC_BOOST(0x10L, "sync_boost"),
    SW_THERMAL(0x20L, "sw_thermal"),
    HW_THERMAL(0x40L, "hw_thermal"),
    HW_POWER_BRAKE(0x80L, "hw_power_brake"),
    DISPLAY_CLOCKS(0x100L, "display_clocks");

    private final long mask;
    private final String label;

    ClockEventReason(long mask, String label) {
        this.mask = mask;
        this.label = label;
    }

    public long mask() {
        return mask;
    }

    public String label() {
        return label;
    }

    /** The reasons set in NVML's bit mask; unknown bits are ignored. */
    public static Set<ClockEventReason> fromMask(long mask) {
        EnumSet<ClockEventReason> reasons = EnumSet.noneOf(ClockEventReason.class);
        for (ClockEventReason reason : values()) {
            if ((mask & reason.mask) != 0) {
                reasons.add(reason);
            }
        }
        return reasons;
    }
}
