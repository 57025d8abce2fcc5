package dev.kgpu.plugin.deviceplugin.resources;

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
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * NVIDIA's resources from its config v1 (v0.20 {@code internal/rm/device_map.go}, {@code rm.go}):
 * <ul>
 *   <li>{@code migStrategy: none}: every GPU as {@code nvidia.com/gpu}, MIG-enabled ones included.</li>
 *   <li>{@code single}: with MIG off everywhere, as {@code none}; with MIG on everywhere, every MIG device as
 *       {@code nvidia.com/gpu}, which requires identical MIG devices; a mix of MIG modes is an error.</li>
 *   <li>{@code mixed}: GPUs without MIG as {@code nvidia.com/gpu}; MIG devices as
 *       {@code nvidia.com/mig-<profile>} ({@code +} becomes {@code .}, so {@code 1g.10gb+me} has a resource of
 *       its own, as in v0.20); a compute-instance profile ({@code 1c.2g.20gb}) counts under its GPU instance's
 *       resource ({@code mig-2g.20gb}), as NVIDIA's plugin up to v0.19 counts it (v0.20's anchored patterns
 *       match no resource for it, and its plugin then does not start).</li>
 *   <li>{@code sharing} (time-slicing or MPS), as NVIDIA does: every device of each named resource is listed
 *       {@code replicas} times as {@code <uuid>::<n>} (several entries for one resource: the most replicas),
 *       under {@code <name>.shared} with {@code renameByDefault}; {@code devices} and {@code rename} are read
 *       and ignored with a warning (NVIDIA's issue #1786).</li>
 *   <li>With {@link SharingDevices#HONOURED} (kgpu's {@code KGPU_HONOUR_SHARING_DEVICES}), {@code devices}
 *       and {@code rename} are honoured: only the selected devices are shared, the others stay whole in their
 *       resource, and entries with explicit device lists may give GPUs different replica counts. What cannot
 *       be honoured on this node (a device it does not have, a count larger than its devices, a device two
 *       entries select) is a warning naming it, never a failed start.</li>
 * </ul>
 * The {@code resources} section (custom names) is ignored with a warning, as NVIDIA v0.20 does, so the
 * same ConfigMap yields the same resource names. Immutable and thread-safe.
 */
public final class ConfiguredResourcePlanner implements ResourcePlanner {

    private static final System.Logger LOG = System.getLogger(ConfiguredResourcePlanner.class.getName());
    public static final String GPU_RESOURCE = "nvidia.com/gpu";

    /** What {@code sharing.*.resources[].devices} and {@code rename} do. */
    public enum SharingDevices {
        /** Read and ignored, as NVIDIA's plugin does: every device of the resource is shared under NVIDIA's name. */
        IGNORED,
        /** kgpu's: only the selected devices are shared, under {@code rename} when given. */
        HONOURED
    }

    /**
     * The values a planner is built from. Immutable.
     *
     * @param config         NVIDIA's effective config v1 ({@code flags.migStrategy}, {@code sharing}, {@code resources})
     * @param sharingDevices what {@code sharing.*.resources[].devices} and {@code rename} do
     *                       ({@code KGPU_HONOUR_SHARING_DEVICES})
     */
    public record Settings(Config config, SharingDevices sharingDevices) {

        public Settings {
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(sharingDevices, "sharingDevices");
        }
    }

    private final Config config;
    private final SharingDevices sharingDevices;
    private final Consumer<String> warnings;

    /** NVIDIA's behaviour, warnings logged. */
    public ConfiguredResourcePlanner(Config config) {
        this(config, SharingDevices.IGNORED, message -> LOG.log(System.Logger.Level.WARNING, message));
    }

    /** A planner of {@code settings}, warnings logged. */
    public ConfiguredResourcePlanner(Settings settings) {
        this(settings.config(), settings.sharingDevices(), message -> LOG.log(System.Logger.Level.WARNING, message));
    }

    /**
     * @param warnings told each thing on this node or in this config that kgpu accepts but does not do as
     *                 written, one line each (the plugin logs them at WARN)
     */
    public ConfiguredResourcePlanner(Config config, SharingDevices sharingDevices, Consumer<String> warnings) {
        this.config = Objects.requireNonNull(config, "config");
        this.sharingDevices = Objects.requireNonNull(sharingDevices, "sharingDevices");
        this.warnings = Objects.requireNonNull(warnings, "warnings");
        if (!config.resources().gpus().isEmpty() || !config.resources().mig().isEmpty()) {
            warnings.accept("resources: custom resource names are ignored, as in NVIDIA's plugin"
                    + " v0.20; GPUs are nvidia.com/gpu and MIG devices nvidia.com/mig-<profile>");
        }
        if (sharingDevices == SharingDevices.IGNORED) {
            config.sharing().active().ifPresent(active -> warnIgnored(active));
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
                        migs.computeIfAbsent(migResourceName(mig.profile()), n -> new ArrayList<>()).add(mig);
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

    /**
     * The resource a MIG device of {@code profile} is advertised under with {@code migStrategy: mixed}:
     * {@code 1g.10gb} → {@code nvidia.com/mig-1g.10gb}, {@code 1g.10gb+me} → {@code nvidia.com/mig-1g.10gb.me},
     * and a compute instance smaller than its GPU instance, {@code 1c.2g.20gb}, under its GPU instance's
     * {@code nvidia.com/mig-2g.20gb} (NVIDIA's default patterns are the profiles whose compute instance spans
     * the GPU instance; up to v0.19 they matched unanchored, so {@code 2g.20gb} matched {@code 1c.2g.20gb}).
     */
    static String migResourceName(String profile) {
        Matcher computeInstance = COMPUTE_INSTANCE_PROFILE.matcher(profile);
        String gpuInstanceProfile = computeInstance.matches() ? computeInstance.group(1) : profile;
        return Resources.defaultMigResourceName(gpuInstanceProfile).value();
    }

    private static final Pattern COMPUTE_INSTANCE_PROFILE = Pattern.compile("[0-9]+c\\.(.+)");

    private static String indices(List<Gpu> gpus) {
        return gpus.stream().map(g -> String.valueOf(g.index())).collect(Collectors.joining(", "));
    }

    // ---------------------------------------------------------------------------------------------
    // sharing

    private List<PluginResource> replicate(Map<String, List<PhysicalDevice>> base) {
        boolean mps = config.sharing().strategy() == SharingStrategy.MPS;
        String section = mps ? "sharing.mps" : "sharing.timeSlicing";
        ReplicatedResources replicated = config.sharing().active().orElseThrow();
        Map<String, Set<AdvertisedDevice>> advertised = new LinkedHashMap<>(); // NVIDIA's map is keyed by device ID
        Map<String, Integer> maxReplicas = new LinkedHashMap<>();
        Map<String, Set<PhysicalDevice>> selectedPerResource = new LinkedHashMap<>();
        Map<PhysicalDevice, Integer> selectedBy = new LinkedHashMap<>();
        Map<String, String> sourceOfAdvertised = new LinkedHashMap<>();

        List<ReplicatedResource> entries = replicated.resources();
        for (int i = 0; i < entries.size(); i++) {
            ReplicatedResource entry = entries.get(i);
            int index = i;
            String property = section + ".resources[" + i + "]";
            String resource = entry.name().value();
            List<PhysicalDevice> devices = base.getOrDefault(resource, List.of());
            if (devices.isEmpty()) {
                warnings.accept("%s.name '%s' matches no device on this node; nothing is shared for it"
                        .formatted(property, entry.name()));
                continue;
            }
            if (mps) {
                devices.stream().filter(MigInstance.class::isInstance).findFirst().ifPresent(m -> {
                    throw new ResourcePlanException(property + ".name was '" + entry.name()
                            + "' but it names MIG devices, which MPS cannot share");
                });
            }
            String name = advertisedName(entry, replicated);
            String source = sourceOfAdvertised.putIfAbsent(name, resource);
            if (source != null && !source.equals(resource)) {
                warnings.accept("%s.rename '%s' is not honoured: that name already advertises shared devices of %s;"
                        .formatted(property, name, source) + " nothing is shared for this entry");
                continue;
            }
            List<PhysicalDevice> selected = switch (sharingDevices) {
                case IGNORED -> devices;
                case HONOURED -> select(entry.devices(), devices, property + ".devices", resource).stream()
                        .filter(d -> {
                            Integer earlier = selectedBy.putIfAbsent(d, index);
                            if (earlier != null && earlier != index) {
                                warnings.accept("%s.devices selects %s, which %s.resources[%d] already shares; it is shared"
                                        .formatted(property, d.uuid(), section, earlier) + " once, as that entry says");
                                return false;
                            }
                            return true;
                        }).toList();
            };
            selectedPerResource.computeIfAbsent(resource, n -> new LinkedHashSet<>()).addAll(selected);
            Set<AdvertisedDevice> shares = advertised.computeIfAbsent(name, n -> new LinkedHashSet<>());
            for (PhysicalDevice device : selected) {
                for (int r = 0; r < entry.replicas(); r++) {
                    shares.add(AdvertisedDevice.replica(device, r));
                }
            }
            if (!selected.isEmpty()) {
                maxReplicas.merge(name, entry.replicas(), Math::max);
            }
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
        advertised.forEach((name, devices) -> {
            if (!devices.isEmpty()) {
                result.computeIfAbsent(name, n -> new ArrayList<>()).addAll(devices);
            }
        });
        List<PluginResource> resources = new ArrayList<>();
        result.forEach((name, devices) -> {
            Replication replication = maxReplicas.containsKey(name) && advertised.containsKey(name)
                    && !advertised.get(name).isEmpty()
                    ? new Replication.Shared(mps, maxReplicas.get(name), replicated.failRequestsGreaterThanOne())
                    : Replication.NONE;
            resources.add(new PluginResource(name, devices, replication));
        });
        return List.copyOf(resources);
    }

    /**
     * The name an entry's replicas are advertised under: NVIDIA's ({@code <name>.shared} with
     * {@code renameByDefault}, else the name), or with honoured sharing devices the entry's {@code rename}.
     */
    private String advertisedName(ReplicatedResource entry, ReplicatedResources block) {
        if (sharingDevices == SharingDevices.HONOURED) {
            return entry.advertisedName().value();
        }
        return block.renameByDefault() ? entry.name().sharedRename().value() : entry.name().value();
    }

    /** NVIDIA's warnings for the {@code rename} and {@code devices} it ignores, naming each entry. */
    private void warnIgnored(ReplicatedResources block) {
        String section = config.sharing().strategy() == SharingStrategy.MPS ? "sharing.mps" : "sharing.timeSlicing";
        for (int i = 0; i < block.resources().size(); i++) {
            ReplicatedResource entry = block.resources().get(i);
            String property = section + ".resources[" + i + "]";
            boolean explicitRename = entry.rename().isPresent()
                    && !(block.renameByDefault() && entry.rename().get().equals(entry.name().sharedRename()));
            if (explicitRename) {
                warnings.accept("%s.rename '%s' is ignored, as NVIDIA's plugin ignores it (its issue #1786); the replicas are"
                        .formatted(property, entry.rename().get()) + " advertised as " + advertisedName(entry, block)
                        + " (KGPU_HONOUR_SHARING_DEVICES=true honours it)");
            }
            if (!(entry.devices() instanceof ReplicatedDevices.All)) {
                warnings.accept("%s.devices '%s' is ignored, as NVIDIA's plugin ignores it (its issue #1786); every device"
                        .formatted(property, describe(entry.devices())) + " of " + entry.name() + " is shared"
                        + " (KGPU_HONOUR_SHARING_DEVICES=true honours it)");
            }
        }
    }

    static String describe(ReplicatedDevices devices) {
        return switch (devices) {
            case ReplicatedDevices.All all -> "all";
            case ReplicatedDevices.Count count -> Integer.toString(count.count());
            case ReplicatedDevices.DeviceList list -> list.devices().stream().map(DeviceRef::text)
                    .collect(Collectors.joining(", ", "[", "]"));
        };
    }

    /** The devices an honoured {@code devices} selects; what this node lacks is a warning, never a failure. */
    private List<PhysicalDevice> select(ReplicatedDevices which, List<PhysicalDevice> devices, String property,
                                        String resource) {
        return switch (which) {
            case ReplicatedDevices.All all -> devices;
            case ReplicatedDevices.Count count -> {
                if (count.count() > devices.size()) {
                    warnings.accept("%s is %d, more than the %d devices of %s on this node; all %d are shared"
                            .formatted(property, count.count(), devices.size(), resource, devices.size()));
                    yield devices;
                }
                yield devices.subList(0, count.count());
            }
            case ReplicatedDevices.DeviceList list -> {
                List<PhysicalDevice> picked = new ArrayList<>();
                for (DeviceRef ref : list.devices()) {
                    find(ref, devices).ifPresentOrElse(picked::add, () -> warnings.accept(("%s names '%s', which is no"
                            + " device of %s on this node; it is left out").formatted(property, ref.text(), resource)));
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
