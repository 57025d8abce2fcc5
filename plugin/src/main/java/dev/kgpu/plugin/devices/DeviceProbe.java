package dev.kgpu.plugin.devices;

import java.util.Optional;

/**
 * Asks the driver whether a device answers. The NVML adapter implements it; tests use a lambda.
 */
@FunctionalInterface
public interface DeviceProbe {

    /** Empty when the device answered; otherwise why not. Must not throw. */
    Optional<String> probe(PhysicalDevice device);
}
