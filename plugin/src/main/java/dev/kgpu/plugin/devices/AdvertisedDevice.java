package dev.kgpu.plugin.devices;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * One device ID the plugin lists to the kubelet: a physical device, or one replica of it
 * ({@code <uuid>::<n>}, NVIDIA's annotated ID) when it is shared by time-slicing or MPS.
 */
public record AdvertisedDevice(String id, PhysicalDevice device, OptionalInt replica) {

    /** Separates a device UUID from its replica number in an annotated ID. */
    public static final String REPLICA_SEPARATOR = "::";

    public AdvertisedDevice {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(replica, "replica");
    }

    public static AdvertisedDevice whole(PhysicalDevice device) {
        return new AdvertisedDevice(device.uuid(), device, OptionalInt.empty());
    }

    public static AdvertisedDevice replica(PhysicalDevice device, int replica) {
        return new AdvertisedDevice(device.uuid() + REPLICA_SEPARATOR + replica, device, OptionalInt.of(replica));
    }

    public boolean isReplica() {
        return replica.isPresent();
    }

    /** The physical device's UUID, without a replica suffix. */
    public String uuid() {
        return device.uuid();
    }
}
