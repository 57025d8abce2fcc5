package dev.kgpu.config.v1;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A config-file field that command-line flags and environment variables may override: its path in
 * the file, how its value is read, and the default used when nothing sets it (NVIDIA's flag default).
 * The agents' loaders ({@code dev.kgpu.agent.settings}) bind each to the binary's flag and environment names.
 *
 * <p>Instances are constants, immutable and thread-safe.
 *
 * @param <T> the Java type of the value
 */
public final class FileField<T> {

    public static final FileField<MigStrategy> MIG_STRATEGY =
            new FileField<>("flags.migStrategy", ValueType.oneOf(MigStrategy.class), MigStrategy.NONE);
    public static final FileField<Boolean> FAIL_ON_INIT_ERROR =
            new FileField<>("flags.failOnInitError", ValueType.bool(), true);
    /** Empty means "none". */
    public static final FileField<String> MPS_ROOT =
            new FileField<>("flags.mpsRoot", ValueType.optionalAbsolutePath(), "");
    public static final FileField<String> NVIDIA_DRIVER_ROOT =
            new FileField<>("flags.nvidiaDriverRoot", ValueType.absolutePath(), "/");
    /** Empty means "the driver root". */
    public static final FileField<String> NVIDIA_DEV_ROOT =
            new FileField<>("flags.nvidiaDevRoot", ValueType.optionalAbsolutePath(), "");
    public static final FileField<Boolean> GDRCOPY_ENABLED =
            new FileField<>("flags.gdrcopyEnabled", ValueType.bool(), false);
    public static final FileField<Boolean> GDS_ENABLED =
            new FileField<>("flags.gdsEnabled", ValueType.bool(), false);
    public static final FileField<Boolean> MOFED_ENABLED =
            new FileField<>("flags.mofedEnabled", ValueType.bool(), false);
    public static final FileField<Boolean> USE_NODE_FEATURE_API =
            new FileField<>("flags.useNodeFeatureAPI", ValueType.bool(), true);
    public static final FileField<DeviceDiscoveryStrategy> DEVICE_DISCOVERY_STRATEGY =
            new FileField<>("flags.deviceDiscoveryStrategy", ValueType.oneOf(DeviceDiscoveryStrategy.class),
                    DeviceDiscoveryStrategy.AUTO);

    public static final FileField<Boolean> PASS_DEVICE_SPECS =
            new FileField<>("flags.plugin.passDeviceSpecs", ValueType.bool(), false);
    public static final FileField<Set<DeviceListStrategy>> DEVICE_LIST_STRATEGY =
            new FileField<>("flags.plugin.deviceListStrategy", ValueType.setOf(DeviceListStrategy.class),
                    Set.of(DeviceListStrategy.ENVVAR));
    public static final FileField<DeviceIdStrategy> DEVICE_ID_STRATEGY =
            new FileField<>("flags.plugin.deviceIDStrategy", ValueType.oneOf(DeviceIdStrategy.class), DeviceIdStrategy.UUID);
    public static final FileField<String> CDI_ANNOTATION_PREFIX =
            new FileField<>("flags.plugin.cdiAnnotationPrefix", ValueType.cdiAnnotationPrefix(), "cdi.k8s.io/");
    public static final FileField<String> NVIDIA_CTK_PATH =
            new FileField<>("flags.plugin.nvidiaCTKPath", ValueType.absolutePath(), "/usr/bin/nvidia-ctk");
    public static final FileField<String> CONTAINER_DRIVER_ROOT =
            new FileField<>("flags.plugin.containerDriverRoot", ValueType.absolutePath(), "/driver-root");
    public static final FileField<AllocationPolicy> SHARED_DEVICES_ALLOCATION_POLICY =
            new FileField<>("flags.plugin.sharedDevicesAllocationPolicy", ValueType.oneOf(AllocationPolicy.class),
                    AllocationPolicy.DISTRIBUTED);

    public static final FileField<Boolean> ONESHOT =
            new FileField<>("flags.gfd.oneshot", ValueType.bool(), false);
    public static final FileField<Boolean> NO_TIMESTAMP =
            new FileField<>("flags.gfd.noTimestamp", ValueType.bool(), false);
    public static final FileField<SleepInterval> SLEEP_INTERVAL =
            new FileField<>("flags.gfd.sleepInterval", ValueType.sleepInterval(), SleepInterval.DEFAULT);
    /** Empty means "no file". */
    public static final FileField<String> OUTPUT_FILE =
            new FileField<>("flags.gfd.outputFile", ValueType.optionalAbsolutePath(),
                    "/etc/kubernetes/node-feature-discovery/features.d/gfd");
    /** Empty means "no file": the machine type is {@code unknown}. */
    public static final FileField<String> MACHINE_TYPE_FILE =
            new FileField<>("flags.gfd.machineTypeFile", ValueType.optionalAbsolutePath(), "/sys/class/dmi/id/product_name");

    public static final FileField<List<Integer>> IMEX_CHANNEL_IDS =
            new FileField<>("imex.channelIDs", ValueType.imexChannelIds(), List.of());
    public static final FileField<Boolean> IMEX_REQUIRED =
            new FileField<>("imex.required", ValueType.bool(), false);

    /** Every field, in NVIDIA's struct order. */
    public static final List<FileField<?>> ALL = List.of(
            MIG_STRATEGY, FAIL_ON_INIT_ERROR, MPS_ROOT, NVIDIA_DRIVER_ROOT, NVIDIA_DEV_ROOT, GDRCOPY_ENABLED,
            GDS_ENABLED, MOFED_ENABLED, USE_NODE_FEATURE_API, DEVICE_DISCOVERY_STRATEGY,
            PASS_DEVICE_SPECS, DEVICE_LIST_STRATEGY, DEVICE_ID_STRATEGY, CDI_ANNOTATION_PREFIX, NVIDIA_CTK_PATH,
            CONTAINER_DRIVER_ROOT, SHARED_DEVICES_ALLOCATION_POLICY,
            ONESHOT, NO_TIMESTAMP, SLEEP_INTERVAL, OUTPUT_FILE, MACHINE_TYPE_FILE,
            IMEX_CHANNEL_IDS, IMEX_REQUIRED);

    private final String path;
    private final ValueType<T> type;
    private final T defaultValue;

    private FileField(String path, ValueType<T> type, T defaultValue) {
        this.path = Objects.requireNonNull(path);
        this.type = Objects.requireNonNull(type);
        this.defaultValue = Objects.requireNonNull(defaultValue);
    }

    /** The dotted path in the config file: {@code flags.plugin.deviceListStrategy}. */
    public String path() {
        return path;
    }

    public ValueType<T> type() {
        return type;
    }

    /** The value when neither a flag, an environment variable nor the file sets it. */
    public T defaultValue() {
        return defaultValue;
    }

    @Override
    public String toString() {
        return path;
    }
}
