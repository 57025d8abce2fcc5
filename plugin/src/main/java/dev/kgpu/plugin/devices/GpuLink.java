package dev.kgpu.plugin.devices;

import java.util.Objects;

/**
 * How two GPUs are connected: their PCIe proximity and the NVLinks between them (direct links, plus
 * for GPUs behind NVSwitches the links both have to a common switch).
 */
public record GpuLink(PcieProximity pcie, int nvlinks) {

    /** Score per NVLink, as go-gpuallocator counts them: one link outweighs any PCIe level. */
    public static final int NVLINK_SCORE = 100;

    public GpuLink {
        Objects.requireNonNull(pcie, "pcie");
        if (nvlinks < 0) {
            throw new IllegalArgumentException("nvlinks was '" + nvlinks + "' but it must not be negative");
        }
    }

    /** {@code 100 × NVLinks + PCIe score}: NVLink-connected pairs always beat PCIe-only pairs. */
    public int score() {
        return NVLINK_SCORE * nvlinks + pcie.score();
    }
}
