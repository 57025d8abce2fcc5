package dev.kgpu.plugin.dra.config;

import java.util.Optional;

/**
 * How a claim's device is to be shared, from its {@code GpuConfig} or {@code MigDeviceConfig}. Immutable.
 *
 * @param kind     {@code GpuConfig} or {@code MigDeviceConfig}; empty when no config applies (NVIDIA's defaults)
 * @param strategy {@code TimeSlicing} or {@code MPS}; empty when the config names no sharing
 * @param interval the time-slice interval ({@code Default}, {@code Short}, {@code Medium}, {@code Long}) for
 *                 {@code TimeSlicing} on a full GPU
 * @param mps      the MPS settings ({@code sharing.mpsConfig}, {@link MpsConfig#NONE} when unsaid) for {@code MPS}; empty
 *                 for any other strategy
 */
public record DeviceSharing(Optional<String> kind, Optional<String> strategy, Optional<String> interval,
                            Optional<MpsConfig> mps) {

    /** No config: NVIDIA's default for the device (no sharing asked for). */
    public static final DeviceSharing DEFAULT = new DeviceSharing(Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty());

    public DeviceSharing(Optional<String> kind, Optional<String> strategy, Optional<String> interval) {
        this(kind, strategy, interval, Optional.empty());
    }
}
