package dev.kgpu.config.v1;

import java.util.Objects;
import java.util.Optional;

/**
 * {@code flags}: the settings that also have command-line flags and environment variables, after
 * precedence and defaults have been applied, so no component is null or unset.
 *
 * @param migStrategy             how MIG devices are exposed
 * @param failOnInitError         exit when NVML cannot start, rather than wait
 * @param mpsRoot                 the host folder of the MPS control daemons; required by the device plugin with MPS
 * @param nvidiaDriverRoot        the driver's root on the host, {@code /} or e.g. {@code /run/nvidia/driver}
 * @param nvidiaDevRoot           the root of the device nodes on the host; defaults to {@code nvidiaDriverRoot}
 * @param gdrcopyEnabled          give GPU containers GDRCopy
 * @param gdsEnabled              give GPU containers GPUDirect Storage
 * @param mofedEnabled            give GPU containers MOFED
 * @param useNodeFeatureAPI       feature discovery publishes through NFD's NodeFeature API rather than a file
 * @param deviceDiscoveryStrategy how devices are found
 * @param plugin                  device-plugin-only settings
 * @param gfd                     feature-discovery-only settings
 */
public record Flags(
        MigStrategy migStrategy,
        boolean failOnInitError,
        Optional<String> mpsRoot,
        String nvidiaDriverRoot,
        String nvidiaDevRoot,
        boolean gdrcopyEnabled,
        boolean gdsEnabled,
        boolean mofedEnabled,
        boolean useNodeFeatureAPI,
        DeviceDiscoveryStrategy deviceDiscoveryStrategy,
        PluginFlags plugin,
        GfdFlags gfd) {

    public Flags {
        Objects.requireNonNull(migStrategy, "migStrategy");
        Objects.requireNonNull(mpsRoot, "mpsRoot");
        Objects.requireNonNull(nvidiaDriverRoot, "nvidiaDriverRoot");
        Objects.requireNonNull(nvidiaDevRoot, "nvidiaDevRoot");
        if (nvidiaDevRoot.isEmpty()) {
            throw new IllegalArgumentException("nvidiaDevRoot was '' but it must be set (it defaults to nvidiaDriverRoot)");
        }
        Objects.requireNonNull(deviceDiscoveryStrategy, "deviceDiscoveryStrategy");
        Objects.requireNonNull(plugin, "plugin");
        Objects.requireNonNull(gfd, "gfd");
    }
}
