package dev.kgpu.plugin.deviceplugin.allocation;

/** How replicas of shared devices are picked ({@code sharedDevicesAllocationPolicy}). */
public enum SharedAllocationPolicy {
    /** Fewest allocated replicas first: spread containers over the physical devices. */
    DISTRIBUTED,
    /** Most allocated replicas first: fill one physical device before the next. */
    PACKED
}
