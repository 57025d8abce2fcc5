package dev.kgpu.config.v1;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which devices of a resource a sharing entry replicates ({@code sharing.*.resources[].devices}):
 * {@code all} (the default), the first {@code <count>} devices, or an explicit list of
 * {@link DeviceRef}s. kgpu honours this choice; NVIDIA v0.20 replaces it by {@code all} with a warning.
 */
public sealed interface ReplicatedDevices permits ReplicatedDevices.All, ReplicatedDevices.Count, ReplicatedDevices.DeviceList {

    /** Every device of the resource. */
    record All() implements ReplicatedDevices {
    }

    /** The first {@code count} devices of the resource, in index order. */
    record Count(int count) implements ReplicatedDevices {
        public Count {
            if (count <= 0) {
                throw new IllegalArgumentException("must be a positive count of devices, 'all' or a list of devices");
            }
        }
    }

    /** Exactly these devices, each named once. */
    record DeviceList(List<DeviceRef> devices) implements ReplicatedDevices {
        public DeviceList {
            devices = List.copyOf(devices);
            if (devices.isEmpty()) {
                throw new IllegalArgumentException("must name at least one device (or be 'all' or a count)");
            }
            Set<DeviceRef> seen = new HashSet<>();
            for (DeviceRef device : devices) {
                if (!seen.add(device)) {
                    throw new IllegalArgumentException("must name each device once, but names '" + device.text() + "' twice");
                }
            }
        }
    }

    ReplicatedDevices ALL = new All();
}
