package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One device of this node's pool as dynamic resource allocation publishes it: a whole GPU ({@code gpu-<minor>}) or a
 * MIG device ({@code gpu-<minor>-mig-<profile>-<profileId>-<placementStart>}), with NVIDIA's attributes and capacity.
 * Attribute and capacity names without a domain belong to the driver ({@value DraNames#DRIVER}). Immutable.
 *
 * @param name       the device's name in its pool, a DNS label
 * @param device     the physical device it stands for
 * @param attributes attribute name to value, in publishing order
 * @param capacity   capacity name to amount (bytes for {@code memory}, a count otherwise), in publishing order
 */
public record DraDevice(String name, PhysicalDevice device, Map<String, AttributeValue> attributes, Map<String, Long> capacity) {

    public DraDevice {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        capacity = Collections.unmodifiableMap(new LinkedHashMap<>(capacity));
    }

    /** {@code gpu} or {@code mig}: the {@code type} attribute, which the DeviceClasses select on. */
    public String type() {
        return device instanceof MigInstance ? DraNames.TYPE_MIG : DraNames.TYPE_GPU;
    }

    /** The UUID of the device a container gets: {@code GPU-...} or {@code MIG-...}. */
    public String uuid() {
        return device.uuid();
    }
}
