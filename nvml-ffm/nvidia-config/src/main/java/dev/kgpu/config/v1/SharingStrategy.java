package dev.kgpu.config.v1;

/** The active sharing strategy, as the {@code nvidia.com/gpu.sharing-strategy} label spells it. */
public enum SharingStrategy implements WireValue {
    /** Devices are not shared. */
    NONE("none"),
    /** {@code sharing.timeSlicing} replicates devices. */
    TIME_SLICING("time-slicing"),
    /** {@code sharing.mps} replicates devices (wins over time-slicing). */
    MPS("mps");

    private final String wireName;

    SharingStrategy(String wireName) {
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
