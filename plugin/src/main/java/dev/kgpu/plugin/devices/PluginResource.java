package dev.kgpu.plugin.devices;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One extended resource the plugin serves (one gRPC server, one socket, one registration): its name,
 * the device IDs it lists and whether they are replicas. Immutable.
 *
 * <p>A resource may list replicas and whole devices side by side, when a sharing entry selects only
 * some of the devices (NVIDIA's behaviour for the devices it does not replicate).
 */
public final class PluginResource {

    private final String name;
    private final List<AdvertisedDevice> devices;
    private final Map<String, AdvertisedDevice> byId;
    private final Replication replication;

    public PluginResource(String name, List<AdvertisedDevice> devices, Replication replication) {
        this.name = Objects.requireNonNull(name, "name");
        this.devices = List.copyOf(devices);
        this.replication = Objects.requireNonNull(replication, "replication");
        Map<String, AdvertisedDevice> index = new LinkedHashMap<>();
        for (AdvertisedDevice device : this.devices) {
            if (index.put(device.id(), device) != null) {
                throw new IllegalArgumentException("device ID '" + device.id() + "' is listed twice in " + name);
            }
        }
        this.byId = Map.copyOf(index);
    }

    /** e.g. {@code nvidia.com/gpu}. */
    public String name() {
        return name;
    }

    public List<AdvertisedDevice> devices() {
        return devices;
    }

    public Replication replication() {
        return replication;
    }

    public Optional<AdvertisedDevice> device(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** NVIDIA's socket name: {@code nvidia-<name after the slash>.sock}, e.g. {@code nvidia-gpu.sock}. */
    public String socketName() {
        return "nvidia-" + name.substring(name.indexOf('/') + 1) + ".sock";
    }

    @Override
    public String toString() {
        return name + " (" + devices.size() + " devices)";
    }
}
