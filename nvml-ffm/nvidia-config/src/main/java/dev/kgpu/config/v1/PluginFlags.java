package dev.kgpu.config.v1;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * {@code flags.plugin}: settings only the device plugin reads.
 *
 * @param passDeviceSpecs               pass {@code /dev/nvidia*} device specs on Allocate
 * @param deviceListStrategy            how allocated devices reach the runtime; at least one
 * @param deviceIDStrategy              UUIDs or indices
 * @param cdiAnnotationPrefix           prefix of CDI annotation keys, e.g. {@code cdi.k8s.io/}
 * @param nvidiaCTKPath                 the NVIDIA CDI hook in generated CDI specs
 * @param containerDriverRoot           where the host's driver root is mounted in the plugin container
 * @param sharedDevicesAllocationPolicy how replicas are picked
 */
public record PluginFlags(
        boolean passDeviceSpecs,
        Set<DeviceListStrategy> deviceListStrategy,
        DeviceIdStrategy deviceIDStrategy,
        String cdiAnnotationPrefix,
        String nvidiaCTKPath,
        String containerDriverRoot,
        AllocationPolicy sharedDevicesAllocationPolicy) {

    public PluginFlags {
        Objects.requireNonNull(deviceListStrategy, "deviceListStrategy");
        if (deviceListStrategy.isEmpty()) {
            throw new IllegalArgumentException("deviceListStrategy was '[]' but it must name at least one strategy");
        }
        deviceListStrategy = Collections.unmodifiableSet(EnumSet.copyOf(deviceListStrategy));
        Objects.requireNonNull(deviceIDStrategy, "deviceIDStrategy");
        Objects.requireNonNull(cdiAnnotationPrefix, "cdiAnnotationPrefix");
        Objects.requireNonNull(nvidiaCTKPath, "nvidiaCTKPath");
        Objects.requireNonNull(containerDriverRoot, "containerDriverRoot");
        Objects.requireNonNull(sharedDevicesAllocationPolicy, "sharedDevicesAllocationPolicy");
    }

    /** Whether {@code strategy} is one of the device list strategies. */
    public boolean includes(DeviceListStrategy strategy) {
        return deviceListStrategy.contains(strategy);
    }
}
