package dev.kgpu.plugin.lifecycle;

import dev.kgpu.config.DevicePluginConfig;
import dev.kgpu.config.v1.AllocationPolicy;
import dev.kgpu.config.v1.DeviceIdStrategy;
import dev.kgpu.config.v1.DeviceListStrategy;
import dev.kgpu.config.v1.Flags;
import dev.kgpu.config.v1.PluginFlags;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.plugin.allocation.AllocationSettings;
import dev.kgpu.plugin.allocation.SharedAllocationPolicy;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.resources.ConfiguredResourcePlanner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Turns the loaded configuration (NVIDIA's names, kgpu's records) into what the supervisor runs with. */
public final class ConfiguredSetup {

    private ConfiguredSetup() {
    }

    public static PluginSetup of(DevicePluginConfig loaded) {
        Flags flags = loaded.config().flags();
        PluginFlags plugin = flags.plugin();
        String devRoot = flags.nvidiaDevRoot();
        boolean mps = loaded.config().sharing().strategy() == SharingStrategy.MPS;
        AllocationSettings allocation = new AllocationSettings(
                plugin.includes(DeviceListStrategy.ENVVAR),
                plugin.includes(DeviceListStrategy.VOLUME_MOUNTS),
                plugin.includes(DeviceListStrategy.CDI_ANNOTATIONS),
                plugin.includes(DeviceListStrategy.CDI_CRI),
                plugin.deviceIDStrategy() == DeviceIdStrategy.INDEX,
                plugin.passDeviceSpecs(),
                devRoot,
                plugin.cdiAnnotationPrefix(),
                mps ? flags.mpsRoot() : Optional.empty(),
                flags.gdrcopyEnabled(),
                flags.gdsEnabled(),
                flags.mofedEnabled(),
                path -> Files.exists(Path.of(devRoot, path)));
        SharedAllocationPolicy shared = plugin.sharedDevicesAllocationPolicy() == AllocationPolicy.PACKED
                ? SharedAllocationPolicy.PACKED : SharedAllocationPolicy.DISTRIBUTED;
        return new PluginSetup(loaded.kubeletSocket(), loaded.socketDirectory(), flags.failOnInitError(),
                new ConfiguredResourcePlanner(loaded.config()), allocation, shared, loaded.toJson());
    }

    /** NVIDIA's {@code DP_DISABLE_HEALTHCHECKS}/{@code DP_ENABLE_HEALTHCHECKS} with kgpu's recovery settings. */
    public static HealthPolicy healthPolicy(DevicePluginConfig loaded, RecoverySettings recovery) {
        var checks = loaded.healthChecks();
        return new HealthPolicy(xid -> !checks.ignores(xid), checks.xidChecksEnabled(), recovery.quietPeriod(),
                recovery.recoverableXids());
    }
}
