package dev.kgpu.config.v1;

import java.util.List;

/**
 * Which devices of a resource a sharing entry replicates ({@code sharing.*.resources[].devices}):
 * {@code all} (the default), the first {@code <count>} devices, or an explicit list of
 * {@link DeviceRef}s. NVIDIA v0.20 replaces it by {@code all} with a warning, and so does kgpu's plugin unless
 * {@code KGPU_HONOUR_SHARING_DEVICES} asks it to honour the choice.
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

    /** These devices, as listed: possibly none, possibly one twice (NVIDIA accepts both). */
    record DeviceList(List<DeviceRef> devices) implements ReplicatedDevices {
        public DeviceList {
            devices = List.copyOf(devices);
        }
    }

    ReplicatedDevices ALL = new All();
}
