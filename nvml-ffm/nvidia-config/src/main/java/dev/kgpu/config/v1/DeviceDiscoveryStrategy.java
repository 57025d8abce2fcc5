package dev.kgpu.config.v1;

/** How devices are found ({@code flags.deviceDiscoveryStrategy}); {@code vfio} is accepted by feature discovery only. */
public enum DeviceDiscoveryStrategy implements WireValue {
    /** NVML where it works, else Tegra. */
    AUTO("auto"),
    /** NVML. */
    NVML("nvml"),
    /** Tegra (Jetson) devices. */
    TEGRA("tegra"),
    /** GPUs bound to vfio-pci (feature discovery only). */
    VFIO("vfio");

    private final String wireName;

    DeviceDiscoveryStrategy(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    @Override
    public String toString() {
        return wireName;
    }
}
