package dev.kgpu.config.v1;

/** How the device plugin passes the allocated devices to the container runtime ({@code flags.plugin.deviceListStrategy}); several may be combined. */
public enum DeviceListStrategy implements WireValue {
    /** {@code NVIDIA_VISIBLE_DEVICES} with the device IDs. */
    ENVVAR("envvar"),
    /** {@code /dev/null} mounts under {@code /var/run/nvidia-container-devices}. */
    VOLUME_MOUNTS("volume-mounts"),
    /** CDI device names as container annotations. */
    CDI_ANNOTATIONS("cdi-annotations"),
    /** CDI device names in the CRI {@code cdi_devices} field. */
    CDI_CRI("cdi-cri");

    private final String wireName;

    DeviceListStrategy(String wireName) {
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
