package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.GpuDetails;
import dev.kgpu.plugin.devices.MigDetails;
import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The devices this node offers for dynamic resource allocation, read from one {@link NodeInventory}: each GPU with
 * MIG off as {@code gpu-<minor>}, each MIG device of a GPU with MIG on as {@code gpu-<minor>-mig-...} ({@link DraNames#mig};
 * the GPU itself then is not offered, as NVIDIA's driver does with static MIG), GPUs in minor order, a GPU's MIG
 * devices by name. A compute instance smaller than its GPU instance ({@code 1c.2g.20gb}) is offered too, under a name of
 * its own; it shares its GPU instance's memory (and {@code memorySlice<i>} capacity) with its sibling compute instances.
 * A device that cannot be named (not a DNS label of at most 63 characters, or a name another device has) is left out
 * with one WARNING line. Or, when the devices could not be read, none and why. Immutable.
 *
 * <p>Attributes (domain {@value DraNames#DRIVER} unless qualified): NVIDIA's current set ({@code type}, {@code uuid},
 * {@code productName}, {@code brand}, {@code architecture}, {@code cudaComputeCapability}, {@code driverVersion},
 * {@code cudaDriverVersion}, MIG: {@code parentUUID}, {@code profile}; {@code resource.kubernetes.io/pciBusID}), plus
 * those its v25.3 releases published and claims may still select on ({@code index}, {@code minor},
 * {@code pcieBusID}; MIG: {@code index}, {@code parentIndex}, {@code pcieBusID}). Capacity: a GPU's {@code memory} in
 * bytes; a MIG device's {@code multiprocessors}, {@code copyEngines}, {@code decoders}, {@code encoders},
 * {@code jpegEngines}, {@code ofaEngines}, {@code memory} and one {@code memorySlice<i>} per memory slice it holds.
 */
public final class NodeDevices {

    private static final System.Logger LOG = System.getLogger(NodeDevices.class.getName());

    /** Before the devices were read. */
    public static final NodeDevices NONE = new NodeDevices(NodeInventory.withoutTopology(List.of()), List.of(),
            Optional.of("the devices have not been read yet"));

    private final NodeInventory inventory;
    private final Map<String, DraDevice> byName;
    private final Optional<String> unreadable;

    private NodeDevices(NodeInventory inventory, List<DraDevice> devices, Optional<String> unreadable) {
        this.inventory = inventory;
        Map<String, DraDevice> map = new LinkedHashMap<>();
        devices.forEach(d -> {
            if (map.put(d.name(), d) != null) {
                throw new IllegalArgumentException("device name '" + d.name() + "' is used twice on this node");
            }
        });
        this.byName = Collections.unmodifiableMap(map);
        this.unreadable = unreadable;
    }

    /** The devices of {@code inventory}. */
    public static NodeDevices of(NodeInventory inventory) {
        List<DraDevice> devices = new ArrayList<>();
        Optional<String> driverVersion = VersionAttributes.semver(inventory.driver().version());
        Optional<String> cudaVersion = VersionAttributes.semver(inventory.driver().cudaDriverVersion());
        for (Gpu gpu : inventory.gpus().stream().sorted(Comparator.comparingInt(Gpu::minor)).toList()) {
            if (!gpu.migEnabled()) {
                devices.add(gpuDevice(gpu, driverVersion, cudaVersion));
                continue;
            }
            gpu.migDevices().stream()
                    .map(mig -> migDevice(gpu, mig, driverVersion, cudaVersion))
                    .sorted(Comparator.comparing(DraDevice::name))
                    .forEach(devices::add);
        }
        return new NodeDevices(inventory, nameable(devices), Optional.empty());
    }

    /** The devices whose names a slice can hold, each name once; the others are left out, each in one WARNING line. */
    private static List<DraDevice> nameable(List<DraDevice> devices) {
        Map<String, DraDevice> kept = new LinkedHashMap<>();
        for (DraDevice device : devices) {
            Optional<String> problem = DraNames.nameProblem(device.name())
                    .or(() -> Optional.ofNullable(kept.get(device.name())).map(other -> "its name " + device.name()
                            + " is " + other.uuid() + "'s too"));
            if (problem.isPresent()) {
                String gpu = device.device() instanceof MigInstance mig ? "gpu-" + mig.parentMinor() : device.name();
                LOG.log(System.Logger.Level.WARNING, "{0} {1} on {2} is not offered: {3}", device.type().equals(DraNames.TYPE_MIG)
                        ? "MIG device" : "GPU", device.uuid(), gpu, problem.get());
                continue;
            }
            kept.put(device.name(), device);
        }
        return List.copyOf(kept.values());
    }

    /** No device, because the driver did not answer ({@code reason}). */
    public static NodeDevices unreadable(String reason) {
        return new NodeDevices(NodeInventory.withoutTopology(List.of()), List.of(), Optional.of(reason));
    }

    private static DraDevice gpuDevice(Gpu gpu, Optional<String> driverVersion, Optional<String> cudaVersion) {
        Map<String, AttributeValue> attributes = new LinkedHashMap<>();
        attributes.put("type", new AttributeValue.Text(DraNames.TYPE_GPU));
        attributes.put("uuid", new AttributeValue.Text(gpu.uuid()));
        attributes.put("minor", new AttributeValue.Int(gpu.minor()));
        attributes.put("index", new AttributeValue.Int(gpu.index()));
        common(gpu, driverVersion, cudaVersion, attributes);
        Map<String, Long> capacity = new LinkedHashMap<>();
        gpu.details().memoryBytes().ifPresent(bytes -> capacity.put("memory", bytes));
        return new DraDevice(DraNames.gpu(gpu), gpu, attributes, capacity);
    }

    private static DraDevice migDevice(Gpu parent, MigInstance mig, Optional<String> driverVersion, Optional<String> cudaVersion) {
        Map<String, AttributeValue> attributes = new LinkedHashMap<>();
        attributes.put("type", new AttributeValue.Text(DraNames.TYPE_MIG));
        attributes.put("uuid", new AttributeValue.Text(mig.uuid()));
        attributes.put("parentUUID", new AttributeValue.Text(parent.uuid()));
        attributes.put("index", new AttributeValue.Int(mig.migIndex()));
        attributes.put("parentIndex", new AttributeValue.Int(parent.index()));
        attributes.put("profile", new AttributeValue.Text(mig.profile()));
        common(parent, driverVersion, cudaVersion, attributes);
        MigDetails details = mig.details();
        Map<String, Long> capacity = new LinkedHashMap<>();
        capacity.put("multiprocessors", (long) details.multiprocessors());
        capacity.put("copyEngines", (long) details.copyEngines());
        capacity.put("decoders", (long) details.decoders());
        capacity.put("encoders", (long) details.encoders());
        capacity.put("jpegEngines", (long) details.jpegEngines());
        capacity.put("ofaEngines", (long) details.ofaEngines());
        capacity.put("memory", details.memoryBytes());
        for (int slice = details.placementStart(); slice < details.placementStart() + details.placementSize(); slice++) {
            capacity.put("memorySlice" + slice, 1L);
        }
        return new DraDevice(DraNames.mig(mig), mig, attributes, capacity);
    }

    /** What a GPU and its MIG devices share: the GPU's product, brand, architecture, versions and PCI address. */
    private static void common(Gpu gpu, Optional<String> driverVersion, Optional<String> cudaVersion, Map<String, AttributeValue> attributes) {
        GpuDetails details = gpu.details();
        attributes.put("productName", new AttributeValue.Text(gpu.productName()));
        attributes.put("brand", new AttributeValue.Text(details.brand()));
        attributes.put("architecture", new AttributeValue.Text(details.architecture()));
        VersionAttributes.semver(details.cudaComputeCapability())
                .ifPresent(v -> attributes.put("cudaComputeCapability", new AttributeValue.Version(v)));
        driverVersion.ifPresent(v -> attributes.put("driverVersion", new AttributeValue.Version(v)));
        cudaVersion.ifPresent(v -> attributes.put("cudaDriverVersion", new AttributeValue.Version(v)));
        attributes.put("pcieBusID", new AttributeValue.Text(gpu.pciAddress()));
        attributes.put(DraNames.PCI_BUS_ID, new AttributeValue.Text(gpu.pciAddress()));
    }

    /** Every device, in publishing order. */
    public List<DraDevice> devices() {
        return List.copyOf(byName.values());
    }

    public Optional<DraDevice> device(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Why there are no devices: the driver did not answer; empty when they were read. */
    public Optional<String> unreadable() {
        return unreadable;
    }

    /** The inventory they were read from (empty when unreadable). */
    public NodeInventory inventory() {
        return inventory;
    }

    /** The physical devices offered, whose health the plugin watches. */
    public List<PhysicalDevice> physicalDevices() {
        return byName.values().stream().map(DraDevice::device).toList();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof NodeDevices that && byName.equals(that.byName) && unreadable.equals(that.unreadable);
    }

    @Override
    public int hashCode() {
        return Objects.hash(byName, unreadable);
    }

    @Override
    public String toString() {
        return unreadable.map(r -> "no devices (" + r + ")").orElse(byName.size() + " devices " + byName.keySet());
    }
}
