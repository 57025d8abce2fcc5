package dev.kgpu.config.v1;

/** How the device plugin picks replicas of shared devices ({@code flags.plugin.sharedDevicesAllocationPolicy}). */
public enum AllocationPolicy implements WireValue {
    /** Spread requests over the physical devices, fewest allocated replicas first. */
    DISTRIBUTED("distributed"),
    /** Fill one physical device before the next, most allocated replicas first. */
    PACKED("packed");

    private final String wireName;

    AllocationPolicy(String wireName) {
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
