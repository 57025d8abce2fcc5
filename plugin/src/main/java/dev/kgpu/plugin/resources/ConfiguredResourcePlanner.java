package dev.kgpu.plugin.resources;

import dev.kgpu.config.v1.Config;
import dev.kgpu.config.v1.DeviceRef;
import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.ReplicatedDevices;
import dev.kgpu.config.v1.ReplicatedResource;
import dev.kgpu.config.v1.ReplicatedResources;
import dev.kgpu.config.v1.Resources;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * NVIDIA's resources from its config v1 (v0.20 {@code internal/rm/device_map.go}, {@code rm.go}):
 * <ul>
 *   <li>{@code migStrategy: none}: every GPU as {@code nvidia.com/gpu}, MIG-enabled ones included.</li>
 *   <li>{@code single}: with MIG off everywhere, as {@code none}; with MIG on everywhere, every MIG device as
 *       {@code nvidia.com/gpu}, which requires identical MIG devices; a mix of MIG modes is an error.</li>
 *   <li>{@code mixed}: GPUs without MIG as {@code nvidia.com/gpu}; MIG devices as
 *       {@code nvidia.com/mig-<profile>} ({@code +} becomes {@code .}) for profiles whose compute instance
 *       spans its GPU instance (NVIDIA's default patterns); others are not advertised (warning).</li>
 *   <li>{@code sharing} (time-slicing or MPS): each selected device of a resource is listed
 *       {@code replicas} times as {@code <uuid>::<n>}, under {@code rename} when given. Unlike NVIDIA
 *       (its issue #1786), kgpu honours {@code devices} and {@code rename}: unselected devices stay in the
 *       original resource unshared, and entries with explicit device lists may give GPUs different
 *       replica counts.</li>
 * </ul>
 * The {@code resources} section (custom names) is ignored with a warning, as NVIDIA v0.20 does, so the
 * same ConfigMap yields the same resource names. Immutable and thread-safe.
 */
public final class ConfiguredResourcePlanner implements ResourcePlanner {

    private static final System.Logger LOG = System.getLogger(ConfiguredResourcePlanner.class.getName());
    public static final String GPU_RESOURCE = "nvidia.com/gpu";

    private final Config config;

    public ConfiguredResourcePlanner(Config config) {
        this.config = Objects.requireNonNull(config, "config");
        if (!config.resources().gpus().isEmpty() || !config.resources().mig().isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "resources: custom resource names are ignored, as in NVIDIA's plugin"
                    + " v0.20; GPUs are nvidia.com/gpu and MIG devices nvidia.com/mig-<profile>");
        }
    }

    @Override
    public List<PluginResource> plan(NodeInventory inventory) {
        Map<String, List<PhysicalDevice>> base = baseResources(inventory);
        return switch (config.sharing().strategy()) {
            case NONE -> base.entrySet().stream().filter(e -> !e.getValue().isEmpty())
                    .map(e -> new PluginResource(e.getKey(), e.getValue().stream().map(AdvertisedDevice::whole).toList(),
                            Replication.NONE))
                    .toList();
            case TIME_SLICING, MPS -> replicate(base);
        };
    }

    // ---------------------------------------------------------------------------------------------
    // MIG strategies

    private Map<String, List<PhysicalDevice>> baseResources(NodeInventory inventory) {
        Map<String, List<PhysicalDevice>> map = new LinkedHashMap<>();
        List<Gpu> gpus = inventory.gpus();
        MigStrategy strategy = config.flags().migStrategy();
        switch (strategy) {
            case NONE -> map.put(GPU_RESOURCE, List.copyOf(gpus));
            case SINGLE -> map.put(GPU_RESOURCE, single(gpus));
            case MIXED -> {
                map.put(GPU_RESOURCE, gpus.stream().filter(g -> !g.migEnabled()).map(PhysicalDevice.class::cast).toList());
                Map<String, List<PhysicalDevice>> migs = new TreeMap<>();
                for (Gpu gpu : gpus) {
                    for (MigInstance mig : gpu.migDevices()) {
                        if (!mig.spansGpuInstance()) {
                            LOG.log(System.Logger.Level.WARNING, ("MIG device %s (%s on GPU %d) is not advertised: under"
                                    + " migStrategy 'mixed' only profiles whose compute instance spans the GPU instance"
                                    + " have a resource").formatted(mig.uuid(), mig.profile(), gpu.index()));
                            continue;
                        }
                        migs.computeIfAbsent(Resources.defaultMigResourceName(mig.profile()).value(), n -> new ArrayList<>())
                                .add(mig);
                    }
                }
                map.putAll(migs);
            }
        }
        return map;
    }

    private static List<PhysicalDevice> single(List<Gpu> gpus) {
        List<Gpu> withMig = gpus.stream().filter(Gpu::migEnabled).toList();
        if (withMig.isEmpty()) {
            return List.copyOf(gpus);
        }
        if (withMig.size() != gpus.size()) {
            throw new ResourcePlanException("flags.migStrategy was 'single' but it needs all devices on the node"
                    + " configured with the same migEnabled value: GPUs " + indices(withMig) + " have MIG enabled and GPUs "
                    + indices(gpus.stream().filter(g -> !g.migEnabled()).toList()) + " do not");
        }
        List<Gpu> empty = withMig.stream().filter(g -> g.migDevices().isEmpty()).toList();
        if (!empty.isEmpty()) {
            throw new ResourcePlanException("flags.migStrategy was 'single' but it needs MIG devices on every"
                    + " MIG-enabled GPU, and GPUs " + indices(empty) + " have none");
        }
        Map<String, Set<Integer>> profiles = new TreeMap<>();
        withMig.forEach(g -> g.migDevices().forEach(m -> profiles.computeIfAbsent(m.profile(), p -> new LinkedHashSet<>())
                .add(g.index())));
        if (profiles.size() > 1) {
            throw new ResourcePlanException("flags.migStrategy was 'single' but it needs all MIG devices to be"
                    + " identical, and this node has " + profiles.entrySet().stream()
                    .map(e -> e.getKey() + " (GPUs " + e.getValue().stream().map(String::valueOf)
                            .collect(Collectors.joining(", ")) + ")")
                    .collect(Collectors.joining(", ")) + "; use migStrategy 'mixed'");
        }
        List<PhysicalDevice> devices = new ArrayList<>();
        withMig.forEach(g -> devices.addAll(g.migDevices()));
        return devices;
    }

    private static String indices(List<Gpu> gpus) {
        return gpus.stream().map(g -> String.valueOf(g.index())).collect(Collectors.joining(", "));
    }

    // ---------------------------------------------------------------------------------------------
    // sharing

    private List<PluginResource> replicate(Map<String, List<PhysicalDevice>> base) {
        SharingStrategy strategy = config.sharing().strategy();
        boolean mps = strategy == SharingStrategy.MPS;
        String section = mps ? "sharing.mps" : "sharing.timeSlicing";
        ReplicatedResources replicated = config.sharing().active().orElseThrow();
        Map<String, List<AdvertisedDevice>> advertised = new LinkedHashMap<>();
        Map<String, Boolean> shared = new LinkedHashMap<>();
        Map<String, Integer> maxReplicas = new LinkedHashMap<>();
        Map<String, Set<PhysicalDevice>> selectedPerResource = new LinkedHashMap<>();

        List<ReplicatedResource> entries = replicated.resources();
        for (int i = 0; i < entries.size(); i++) {
            ReplicatedResource entry = entries.get(i);
            String property = section + ".resources[" + i + "]";
            List<PhysicalDevice> devices = base.getOrDefault(entry.name().value(), List.of());
            if (devices.isEmpty()) {
                LOG.log(System.Logger.Level.WARNING, "%s.name '%s' matches no device on this node; nothing is shared for it"
                        .formatted(property, entry.name()));
                continue;
            }
            if (mps) {
                devices.stream().filter(MigInstance.class::isInstance).findFirst().ifPresent(m -> {
                    throw new ResourcePlanException(property + ".name was '" + entry.name()
                            + "' but it names MIG devices, which MPS cannot share");
                });
            }
            List<PhysicalDevice> selected = select(entry.devices(), devices, property + ".devices", entry.name().value());
            selectedPerResource.computeIfAbsent(entry.name().value(), n -> new LinkedHashSet<>()).addAll(selected);
            String name = entry.advertisedName().value();
            List<AdvertisedDevice> list = advertised.computeIfAbsent(name, n -> new ArrayList<>());
            for (PhysicalDevice device : selected) {
                for (int r = 0; r < entry.replicas(); r++) {
                    list.add(AdvertisedDevice.replica(device, r));
                }
            }
            shared.put(name, true);
            maxReplicas.merge(name, entry.replicas(), Math::max);
        }
        // devices no entry selected stay in their resource, whole
        Map<String, List<AdvertisedDevice>> result = new LinkedHashMap<>();
        for (Map.Entry<String, List<PhysicalDevice>> resource : base.entrySet()) {
            Set<PhysicalDevice> selected = selectedPerResource.getOrDefault(resource.getKey(), Set.of());
            List<AdvertisedDevice> whole = resource.getValue().stream().filter(d -> !selected.contains(d))
                    .map(AdvertisedDevice::whole).toList();
            if (!whole.isEmpty()) {
                result.computeIfAbsent(resource.getKey(), n -> new ArrayList<>()).addAll(whole);
            }
        }
        advertised.forEach((name, devices) -> result.computeIfAbsent(name, n -> new ArrayList<>()).addAll(devices));
        List<PluginResource> resources = new ArrayList<>();
        result.forEach((name, devices) -> {
            Replication replication = shared.getOrDefault(name, false)
                    ? new Replication.Shared(mps, maxReplicas.get(name), replicated.failRequestsGreaterThanOne())
                    : Replication.NONE;
            resources.add(new PluginResource(name, devices, replication));
        });
        return List.copyOf(resources);
    }

    private static List<PhysicalDevice> select(ReplicatedDevices which, List<PhysicalDevice> devices, String property,
                                               String resource) {
        return switch (which) {
            case ReplicatedDevices.All all -> devices;
            case ReplicatedDevices.Count count -> {
                if (count.count() > devices.size()) {
                    throw new ResourcePlanException(property + " was '" + count.count() + "' but it asks for more"
                            + " devices than the " + devices.size() + " of " + resource + " on this node");
                }
                yield devices.subList(0, count.count());
            }
            case ReplicatedDevices.DeviceList list -> {
                List<PhysicalDevice> picked = new ArrayList<>();
                for (DeviceRef ref : list.devices()) {
                    picked.add(find(ref, devices).orElseThrow(() -> new ResourcePlanException(property + " was '"
                            + ref.text() + "' but it names no device of " + resource + " on this node")));
                }
                yield List.copyOf(new LinkedHashSet<>(picked));
            }
        };
    }

    private static Optional<PhysicalDevice> find(DeviceRef ref, List<PhysicalDevice> devices) {
        return devices.stream().filter(d -> switch (ref) {
            case DeviceRef.GpuIndex index -> d instanceof Gpu g && g.index() == index.index();
            case DeviceRef.MigIndex index -> d instanceof MigInstance m && m.parentIndex() == index.gpu()
                    && m.migIndex() == index.mig();
            case DeviceRef.GpuUuid uuid -> d instanceof Gpu && d.uuid().equalsIgnoreCase(uuid.uuid());
            case DeviceRef.MigUuid uuid -> d instanceof MigInstance m && (m.uuid().equalsIgnoreCase(uuid.uuid())
                    || ("MIG-" + m.parentUuid() + "/" + m.gpuInstanceId() + "/" + m.computeInstanceId())
                    .equalsIgnoreCase(uuid.uuid()));
        }).findFirst();
    }
}
