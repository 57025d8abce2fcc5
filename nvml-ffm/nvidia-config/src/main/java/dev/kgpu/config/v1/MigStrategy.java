package dev.kgpu.config.v1;

/** How MIG devices are exposed ({@code flags.migStrategy}). */
public enum MigStrategy implements WireValue {
    /** Full GPUs only; MIG-enabled GPUs are still exposed whole. */
    NONE("none"),
    /** MIG devices, all identical, exposed as {@code nvidia.com/gpu}. */
    SINGLE("single"),
    /** One resource {@code nvidia.com/mig-<profile>} per MIG profile. */
    MIXED("mixed");

    private final String wireName;

    MigStrategy(String wireName) {
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
