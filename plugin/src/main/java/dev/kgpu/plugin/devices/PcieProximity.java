package dev.kgpu.plugin.devices;

/**
 * How close two GPUs sit on PCIe (NVML's common-ancestor levels), with the score NVIDIA's
 * go-gpuallocator gives each level: closer is better.
 */
public enum PcieProximity {
    SAME_BOARD(60),
    SINGLE_SWITCH(50),
    MULTIPLE_SWITCHES(40),
    HOST_BRIDGE(30),
    SAME_NUMA_NODE(20),
    ACROSS_NUMA_NODES(10);

    private final int score;

    PcieProximity(int score) {
        this.score = score;
    }

    public int score() {
        return score;
    }
}
