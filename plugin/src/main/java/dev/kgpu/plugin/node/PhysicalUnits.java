package dev.kgpu.plugin.node;

import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The node's {@link DeviceUnit}s, read from one inventory, and the names the kubelet's device manager knows them by:
 * a device-plugin ID is a UUID ({@code GPU-...}, {@code MIG-...}), a replica of one ({@code <uuid>::<n>}), or an index
 * under {@code deviceIDStrategy: index} ({@code 2}, {@code 2:1}). Immutable.
 */
public final class PhysicalUnits {

    /** Before the devices were read. */
    public static final PhysicalUnits NONE = new PhysicalUnits(Map.of(), Map.of());

    private final Map<String, DeviceUnit> byUuid;
    private final Map<String, DeviceUnit> byIndex;

    private PhysicalUnits(Map<String, DeviceUnit> byUuid, Map<String, DeviceUnit> byIndex) {
        this.byUuid = Collections.unmodifiableMap(new LinkedHashMap<>(byUuid));
        this.byIndex = Map.copyOf(byIndex);
    }

    /** Every GPU and MIG device of {@code inventory}. */
    public static PhysicalUnits of(NodeInventory inventory) {
        Map<String, DeviceUnit> byUuid = new LinkedHashMap<>();
        Map<String, DeviceUnit> byIndex = new LinkedHashMap<>();
        for (Gpu gpu : inventory.gpus()) {
            add(gpu, byUuid, byIndex);
            for (MigInstance mig : gpu.migDevices()) {
                add(mig, byUuid, byIndex);
            }
        }
        return new PhysicalUnits(byUuid, byIndex);
    }

    private static void add(PhysicalDevice device, Map<String, DeviceUnit> byUuid, Map<String, DeviceUnit> byIndex) {
        DeviceUnit unit = DeviceUnit.of(device);
        byUuid.put(device.uuid(), unit);
        byIndex.put(device.indexId(), unit);
    }

    /** The unit of a device by its UUID. */
    public Optional<DeviceUnit> ofUuid(String uuid) {
        return Optional.ofNullable(byUuid.get(uuid));
    }

    /** The unit a device-plugin ID stands for: a UUID, a replica of one, or an index; empty for an ID of no device here. */
    public Optional<DeviceUnit> ofDevicePluginId(String id) {
        int replica = id.indexOf(AdvertisedDevice.REPLICA_SEPARATOR);
        String device = replica < 0 ? id : id.substring(0, replica);
        DeviceUnit unit = byUuid.get(device);
        return Optional.ofNullable(unit != null ? unit : byIndex.get(device));
    }

    /** Every unit, GPUs in NVML index order, each followed by its MIG devices. */
    public Collection<DeviceUnit> all() {
        return byUuid.values();
    }
}
