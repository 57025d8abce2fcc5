package dev.kgpu.config.v1;

import java.util.Objects;
import java.util.Optional;

/**
 * The effective configuration v1, shaped like NVIDIA's {@code api/config/v1.Config}: the config file's
 * fields after command-line flags and environment variables have been applied, with every default
 * filled in. Build one with {@code DevicePluginConfig.load} (the plugin) or {@code FeatureDiscoveryConfig.load}
 * (discovery); {@link ConfigJson} prints it as NVIDIA logs it.
 *
 * <p>Immutable and thread-safe.
 */
public record Config(Flags flags, Resources resources, Sharing sharing, Imex imex) {

    /** The only version there is; an empty {@code version} means this one. */
    public static final String VERSION = "v1";

    public Config {
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(sharing, "sharing");
        Objects.requireNonNull(imex, "imex");
    }

    /** Always {@value #VERSION}. */
    public String version() {
        return VERSION;
    }

    /**
     * Builds the records from one value per {@link FileField}, applying the defaults that depend on
     * other fields ({@code nvidiaDevRoot} falls back to {@code nvidiaDriverRoot}, an empty
     * {@code mpsRoot} means none).
     */
    public static Config assemble(FieldValues values, Resources resources, Sharing sharing) {
        String driverRoot = values.get(FileField.NVIDIA_DRIVER_ROOT);
        String devRoot = values.get(FileField.NVIDIA_DEV_ROOT);
        String mpsRoot = values.get(FileField.MPS_ROOT);
        PluginFlags plugin = new PluginFlags(
                values.get(FileField.PASS_DEVICE_SPECS),
                values.get(FileField.DEVICE_LIST_STRATEGY),
                values.get(FileField.DEVICE_ID_STRATEGY),
                values.get(FileField.CDI_ANNOTATION_PREFIX),
                values.get(FileField.NVIDIA_CTK_PATH),
                values.get(FileField.CONTAINER_DRIVER_ROOT),
                values.get(FileField.SHARED_DEVICES_ALLOCATION_POLICY));
        GfdFlags gfd = new GfdFlags(
                values.get(FileField.ONESHOT),
                values.get(FileField.NO_TIMESTAMP),
                values.get(FileField.SLEEP_INTERVAL),
                values.get(FileField.OUTPUT_FILE),
                values.get(FileField.MACHINE_TYPE_FILE));
        Flags flags = new Flags(
                values.get(FileField.MIG_STRATEGY),
                values.get(FileField.FAIL_ON_INIT_ERROR),
                mpsRoot.isEmpty() ? Optional.empty() : Optional.of(mpsRoot),
                driverRoot,
                devRoot.isEmpty() ? driverRoot : devRoot,
                values.get(FileField.GDRCOPY_ENABLED),
                values.get(FileField.GDS_ENABLED),
                values.get(FileField.MOFED_ENABLED),
                values.get(FileField.USE_NODE_FEATURE_API),
                values.get(FileField.DEVICE_DISCOVERY_STRATEGY),
                plugin,
                gfd);
        return new Config(flags, resources, sharing,
                new Imex(values.get(FileField.IMEX_CHANNEL_IDS), values.get(FileField.IMEX_REQUIRED)));
    }

    /** Every default, no sharing, no custom resources: what an empty config file means. */
    public static Config defaults() {
        return assemble(FileField::defaultValue, Resources.NONE, Sharing.NONE);
    }

    /** One value for each {@link FileField}. */
    @FunctionalInterface
    public interface FieldValues {
        <T> T get(FileField<T> field);
    }
}
