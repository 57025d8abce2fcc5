package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.config.v1.AllocationPolicy;
import dev.kgpu.config.v1.DeviceIdStrategy;
import dev.kgpu.config.v1.DeviceListStrategy;
import dev.kgpu.config.v1.Flags;
import dev.kgpu.config.v1.PluginFlags;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.plugin.config.DevicePluginConfig;
import dev.kgpu.plugin.deviceplugin.allocation.AllocationSettings;
import dev.kgpu.plugin.deviceplugin.allocation.SharedAllocationPolicy;
import dev.kgpu.plugin.deviceplugin.resources.ConfiguredResourcePlanner;
import dev.kgpu.plugin.mps.MpsSettings;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How the device-plugin front-end runs, from NVIDIA's device plugin settings and kgpu's own listed here
 * ({@link #SETTINGS}). A reload can only change what the config file sets: {@link #resources()},
 * {@link #allocation()}, {@link #sharedPolicy()} and the CDI spec's generator. Immutable.
 *
 * @param kubeletSocket   the kubelet's registration socket; empty means serve but never register
 * @param socketDirectory the device-plugins directory the resource sockets live in
 * @param resources       what the resources are planned from (MIG strategy, sharing)
 * @param allocation      how Allocate answers
 * @param sharedPolicy    how replicas are preferred
 * @param cdi             whether and how the CDI spec for the names Allocate hands out is written
 * @param mps             with {@code sharing.mps}: where the MPS control daemons are, which each MPS-shared resource
 *                        waits for before it is advertised
 */
public record DevicePluginSettings(Optional<Path> kubeletSocket, Path socketDirectory,
                                   ConfiguredResourcePlanner.Settings resources, AllocationSettings allocation,
                                   SharedAllocationPolicy sharedPolicy, CdiSettings cdi, Optional<MpsSettings> mps) {

    /** kgpu: where the CDI spec goes when a CDI strategy is on. */
    static final Setting<String> CDI_SPEC_DIR = Setting.of(List.of(), List.of("KGPU_CDI_SPEC_DIR"),
            ValueType.absolutePath(), CdiSpecWriter.DEFAULT_DIRECTORY.toString(),
            "kgpu: the folder the CDI spec of the names Allocate hands out is written to, with a CDI device-list strategy");
    /** kgpu: honour sharing.*.resources[].devices and rename, which NVIDIA's plugin reads and ignores. */
    static final Setting<Boolean> HONOUR_SHARING_DEVICES = Setting.of(List.of(), List.of("KGPU_HONOUR_SHARING_DEVICES"),
            ValueType.bool(), false, "kgpu: share only the devices sharing.*.resources[].devices selects, under its rename"
                    + " (NVIDIA's plugin ignores both and shares every device, its issue #1786; default false, as NVIDIA)");

    /** kgpu's settings of the device plugin, besides NVIDIA's: its own and the MPS ones it shares with the MPS daemon. */
    public static final List<Setting<?>> SETTINGS = java.util.stream.Stream.concat(
            java.util.stream.Stream.<Setting<?>>of(CDI_SPEC_DIR, HONOUR_SHARING_DEVICES), MpsSettings.SETTINGS.stream()).toList();

    public DevicePluginSettings {
        Objects.requireNonNull(kubeletSocket, "kubeletSocket");
        Objects.requireNonNull(socketDirectory, "socketDirectory");
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(allocation, "allocation");
        Objects.requireNonNull(sharedPolicy, "sharedPolicy");
        Objects.requireNonNull(cdi, "cdi");
        Objects.requireNonNull(mps, "mps");
    }

    /**
     * The device plugin's settings from NVIDIA's configuration and {@link #SETTINGS}, resolved with them.
     *
     * @param procRoot the node's {@code KGPU_PROC_ROOT}, where the CDI spec's MIG capabilities are read
     */
    public static DevicePluginSettings of(DevicePluginConfig loaded, ConfigLoader.Resolved resolved, Path procRoot) {
        Flags flags = loaded.config().flags();
        PluginFlags plugin = flags.plugin();
        boolean mps = loaded.config().sharing().strategy() == SharingStrategy.MPS;
        AllocationSettings allocation = new AllocationSettings(
                plugin.includes(DeviceListStrategy.ENVVAR),
                plugin.includes(DeviceListStrategy.VOLUME_MOUNTS),
                plugin.includes(DeviceListStrategy.CDI_ANNOTATIONS),
                plugin.includes(DeviceListStrategy.CDI_CRI),
                plugin.deviceIDStrategy() == DeviceIdStrategy.INDEX,
                plugin.passDeviceSpecs(),
                flags.nvidiaDevRoot(),
                plugin.cdiAnnotationPrefix(),
                mps ? flags.mpsRoot() : Optional.empty(),
                flags.gdrcopyEnabled(),
                flags.gdsEnabled(),
                flags.mofedEnabled());
        SharedAllocationPolicy shared = plugin.sharedDevicesAllocationPolicy() == AllocationPolicy.PACKED
                ? SharedAllocationPolicy.PACKED : SharedAllocationPolicy.DISTRIBUTED;
        CdiSettings cdi = new CdiSettings(allocation.cdiAnnotations() || allocation.cdiCri(),
                Path.of(resolved.get(CDI_SPEC_DIR)), loaded.cdiGenerator(procRoot));
        ConfiguredResourcePlanner.Settings resources = new ConfiguredResourcePlanner.Settings(loaded.config(),
                resolved.get(HONOUR_SHARING_DEVICES) ? ConfiguredResourcePlanner.SharingDevices.HONOURED
                        : ConfiguredResourcePlanner.SharingDevices.IGNORED);
        return new DevicePluginSettings(loaded.kubeletSocket(), loaded.socketDirectory(), resources, allocation, shared, cdi,
                mps ? Optional.of(MpsSettings.of(resolved)) : Optional.empty());
    }
}
