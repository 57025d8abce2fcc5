package dev.kgpu.plugin.node;

import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.util.Objects;
import java.util.Optional;

/**
 * What two holders must not share: a whole GPU ({@code GPU-...}) or a MIG device ({@code MIG-...}, on its parent GPU).
 * Two compute instances of one GPU instance are two units, as the device plugin hands them out. Immutable.
 *
 * @param uuid   the device's UUID
 * @param parent the parent GPU's UUID, for a MIG device
 */
public record DeviceUnit(String uuid, Optional<String> parent) {

    public DeviceUnit {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(parent, "parent");
    }

    /** The unit of {@code device}. */
    public static DeviceUnit of(PhysicalDevice device) {
        return switch (device) {
            case Gpu gpu -> new DeviceUnit(gpu.uuid(), Optional.empty());
            case MigInstance mig -> new DeviceUnit(mig.uuid(), Optional.of(mig.parentUuid()));
        };
    }

    /** Whether a holder of this unit and one of {@code other} would share a device: the same one, or a GPU and its MIG device. */
    public boolean conflicts(DeviceUnit other) {
        return uuid.equals(other.uuid) || parent.equals(Optional.of(other.uuid)) || other.parent.equals(Optional.of(uuid));
    }
}
