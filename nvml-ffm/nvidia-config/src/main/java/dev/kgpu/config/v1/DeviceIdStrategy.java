package dev.kgpu.config.v1;

/** Which IDs the device plugin hands to the runtime ({@code flags.plugin.deviceIDStrategy}). */
public enum DeviceIdStrategy implements WireValue {
    /** GPU and MIG UUIDs. */
    UUID("uuid"),
    /** Device indices ({@code 0}, {@code 0:1}). */
    INDEX("index");

    private final String wireName;

    DeviceIdStrategy(String wireName) {
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
