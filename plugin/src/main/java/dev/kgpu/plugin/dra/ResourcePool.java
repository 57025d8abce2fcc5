package dev.kgpu.plugin.dra;

import java.util.List;
import java.util.Objects;

/**
 * What this node's ResourceSlices must say: the driver's pool on this node and the devices in it now (the Healthy
 * ones). Immutable.
 *
 * @param driver   {@value DraNames#DRIVER}
 * @param name     the pool: the node's name, as NVIDIA's driver names it
 * @param nodeName the node the devices are on ({@code spec.nodeName})
 * @param devices  the devices to publish, in order
 */
public record ResourcePool(String driver, String name, String nodeName, List<DraDevice> devices) {

    /** At most this many devices go into one slice (the API's limit without taints or counters). */
    public static final int DEVICES_PER_SLICE = 128;

    public ResourcePool {
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(nodeName, "nodeName");
        devices = List.copyOf(devices);
    }

    /** The devices split into slices of at most {@value #DEVICES_PER_SLICE}, in order; one empty slice when none. */
    public List<List<DraDevice>> slices() {
        if (devices.isEmpty()) {
            return List.of(List.of());
        }
        java.util.ArrayList<List<DraDevice>> slices = new java.util.ArrayList<>();
        for (int from = 0; from < devices.size(); from += DEVICES_PER_SLICE) {
            slices.add(devices.subList(from, Math.min(devices.size(), from + DEVICES_PER_SLICE)));
        }
        return List.copyOf(slices);
    }
}
