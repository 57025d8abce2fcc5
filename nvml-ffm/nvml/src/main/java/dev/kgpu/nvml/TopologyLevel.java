package dev.kgpu.nvml;

/**
 * {@code nvmlGpuTopologyLevel_t}: the closest common PCIe ancestor of two GPUs, best first.
 */
public enum TopologyLevel {
    /** Same board (e.g. dual-GPU cards). */
    INTERNAL(0),
    /** A single PCIe switch. */
    SINGLE(10),
    /** Several PCIe switches, no host bridge. */
    MULTIPLE(20),
    /** A PCIe host bridge. */
    HOSTBRIDGE(30),
    /** The same NUMA node (crossing host bridges). */
    NODE(40),
    /** Across NUMA nodes (SMP interconnect). */
    SYSTEM(50);

    private final int nvmlValue;

    TopologyLevel(int nvmlValue) {
        this.nvmlValue = nvmlValue;
    }

    public int nvmlValue() {
        return nvmlValue;
    }

    public static TopologyLevel fromNvml(int value) {
        for (TopologyLevel level : values()) {
            if (level.nvmlValue == value) {
                return level;
            }
        }
        throw new IllegalArgumentException("NVML topology level was '" + value + "' but it must be 0, 10, 20, 30, 40 or 50");
    }
}
