package dev.kgpu.nvml;

/** {@code nvmlGpuP2PCapsIndex_t}: which peer-to-peer capability to ask about. */
public enum P2pCapability {
    READ(0), WRITE(1), NVLINK(2), ATOMICS(3), PCI(4), PROP(5);

    private final int nvmlValue;

    P2pCapability(int nvmlValue) {
        this.nvmlValue = nvmlValue;
    }

    public int nvmlValue() {
        return nvmlValue;
    }
}
