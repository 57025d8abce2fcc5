package dev.kgpu.discovery.labels;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.discovery.labels.LabelSettings.Sharing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The resource labels: {@code nvidia.com/gpu.*} for full GPUs and, by MIG strategy, the single-strategy
 * overrides of {@code nvidia.com/gpu.*} or the mixed-strategy {@code nvidia.com/mig-<profile>.*} families
 * (GFD's {@code internal/lm/resource.go} and {@code mig-strategy.go}).
 *
 * <p>Several GPU models on one node: GFD builds one label set per model and merges them in Go map order,
 * so one model's labels win at random. kgpu makes the choice fixed: GPUs with MIG disabled win over
 * MIG-enabled ones (as in GFD), and within each group the model of the lowest-indexed GPU wins. Its
 * {@code gpu.count} is that model's count, not the node's total, exactly as in GFD.
 */
final class ResourceLabeler implements Labeler {

    static final String FULL_GPU = "nvidia.com/gpu";

    @Override
    public Labels labels(LabelInput input) {
        List<Gpu> gpus = input.node().gpus();
        if (gpus.isEmpty()) {
            return Labels.empty();
        }
        LabelSettings settings = input.settings();
        Labels full = fullGpuLabels(gpus, settings.sharing());
        return switch (settings.migStrategy()) {
            case NONE -> full;
            case SINGLE -> full.mergedWith(strategyLabel(MigStrategy.SINGLE)).mergedWith(single(gpus, settings.sharing()));
            case MIXED -> full.mergedWith(strategyLabel(MigStrategy.MIXED)).mergedWith(mixed(gpus, settings.sharing()));
        };
    }

    private static Labels strategyLabel(MigStrategy strategy) {
        return Labels.of("nvidia.com/mig.strategy", strategy.wireName());
    }

    /** One label set per GPU model, merged so that the winning model (see the class comment) comes last. */
    private static Labels fullGpuLabels(List<Gpu> gpus, Sharing sharing) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, Gpu> migEnabledModels = new LinkedHashMap<>();
        Map<String, Gpu> fullModels = new LinkedHashMap<>();
        for (Gpu gpu : gpus) {
            counts.merge(gpu.name(), 1, Integer::sum);
            (gpu.migEnabled() ? migEnabledModels : fullModels).putIfAbsent(gpu.name(), gpu);
        }
        Labels merged = Labels.empty();
        // MIG-enabled models carry no sharing information (GFD passes no config for them).
        for (Gpu gpu : reversed(migEnabledModels.values())) {
            merged = merged.mergedWith(fullGpu(new Resource(FULL_GPU, Optional.empty()), gpu, counts.get(gpu.name())));
        }
        for (Gpu gpu : reversed(fullModels.values())) {
            merged = merged.mergedWith(fullGpu(new Resource(FULL_GPU, Optional.of(sharing)), gpu, counts.get(gpu.name())));
        }
        return merged;
    }

    private static Labels fullGpu(Resource resource, Gpu gpu, int count) {
        Labels.Builder labels = Labels.builder().putAll(resource.base(count, gpu.name()));
        if (gpu.memoryMiB() != 0) {
            labels.put(resource.key("memory"), gpu.memoryMiB());
        }
        if (gpu.computeMajor() != 0) {
            labels.put(resource.key("family"), architectureFamily(gpu.computeMajor(), gpu.computeMinor()));
            labels.put(resource.key("compute.major"), gpu.computeMajor());
            labels.put(resource.key("compute.minor"), gpu.computeMinor());
        }
        return labels.build();
    }

    private static Labels single(List<Gpu> gpus, Sharing sharing) {
        List<Gpu> migEnabled = gpus.stream().filter(Gpu::migEnabled).toList();
        if (migEnabled.isEmpty()) {
            return Labels.empty();
        }
        Gpu first = migEnabled.getFirst();
        if (migEnabled.stream().anyMatch(gpu -> gpu.migDevices().isEmpty())) {
            return invalidSingle(first);
        }
        if (migEnabled.size() != gpus.size()) {
            return invalidSingle(first);
        }
        Map<String, MigGroup> groups = migGroups(migEnabled);
        if (groups.size() != 1) {
            return invalidSingle(first);
        }
        MigGroup group = groups.values().iterator().next();
        return migLabels(new Resource(FULL_GPU, Optional.of(sharing)), group);
    }

    /** GFD's labels for a MIG layout that the single strategy cannot expose. */
    private static Labels invalidSingle(Gpu model) {
        Resource resource = new Resource(FULL_GPU, Optional.empty());
        return Labels.builder()
                .put(resource.key("product"), resource.productName(model.name(), "MIG", "INVALID"))
                .put(resource.key("count"), 0)
                .put(resource.key("replicas"), 0)
                .put(resource.key("sharing-strategy"), "")
                .put(resource.key("memory"), 0)
                .build();
    }

    private static Labels mixed(List<Gpu> gpus, Sharing sharing) {
        Labels merged = Labels.empty();
        for (MigGroup group : migGroups(gpus.stream().filter(Gpu::migEnabled).toList()).values()) {
            Resource resource = new Resource("nvidia.com/mig-" + group.first().resourceProfile(), Optional.of(sharing));
            merged = merged.mergedWith(migLabels(resource, group));
        }
        return merged;
    }

    private static Labels migLabels(Resource resource, MigGroup group) {
        MigInstance mig = group.first();
        return Labels.builder()
                .putAll(resource.base(group.count(), group.parent().name(), "MIG", mig.resourceProfile()))
                .put(resource.key("memory"), mig.memoryMiB())
                .put(resource.key("multiprocessors"), mig.multiprocessors())
                .put(resource.key("slices.gi"), mig.gpuInstanceSlices())
                .put(resource.key("slices.ci"), mig.computeInstanceSlices())
                .put(resource.key("engines.copy"), mig.copyEngines())
                .put(resource.key("engines.decoder"), mig.decoders())
                .put(resource.key("engines.encoder"), mig.encoders())
                .put(resource.key("engines.jpeg"), mig.jpegEngines())
                .put(resource.key("engines.ofa"), mig.ofaEngines())
                .build();
    }

    /** MIG devices grouped by profile in device order; each group remembers its first device and that device's GPU. */
    private static Map<String, MigGroup> migGroups(List<Gpu> migEnabled) {
        Map<String, MigGroup> groups = new LinkedHashMap<>();
        for (Gpu gpu : migEnabled) {
            for (MigInstance mig : gpu.migDevices()) {
                groups.merge(mig.resourceProfile(), new MigGroup(gpu, mig, 1),
                        (old, added) -> new MigGroup(old.parent(), old.first(), old.count() + 1));
            }
        }
        return groups;
    }

    private record MigGroup(Gpu parent, MigInstance first, int count) {
    }

    /**
     * GFD's architecture family by compute capability ({@code getArchFamily}).
     */
    static String architectureFamily(int major, int minor) {
        return switch (major) {
            case 1 -> "tesla";
            case 2 -> "fermi";
            case 3 -> "kepler";
            case 5 -> "maxwell";
            case 6 -> "pascal";
            case 7 -> minor < 5 ? "volta" : "turing";
            case 8 -> minor < 9 ? "ampere" : "ada-lovelace";
            case 9 -> "hopper";
            case 10, 12 -> "blackwell";
            case 13 -> "rubin";
            default -> "undefined";
        };
    }

    private static <T> List<T> reversed(java.util.Collection<T> values) {
        return new ArrayList<>(values).reversed();
    }

    /**
     * One advertised resource, {@code nvidia.com/gpu} or {@code nvidia.com/mig-<profile>}.
     *
     * @param sharing empty where GFD passes no config (MIG-enabled GPUs under the full-GPU labels): then
     *                replicas are 0 and nothing is shared
     */
    private record Resource(String name, Optional<Sharing> sharing) {

        String key(String suffix) {
            return name + "." + suffix;
        }

        Labels base(int count, String... parts) {
            int replicas = replicas();
            SharingStrategy strategy = sharing.isPresent() && replicas > 1 ? sharing.get().strategy() : SharingStrategy.NONE;
            return Labels.builder()
                    .put(key("product"), productName(parts))
                    .put(key("count"), count)
                    .put(key("replicas"), replicas)
                    .put(key("sharing-strategy"), strategy.wireName())
                    .build();
        }

        int replicas() {
            if (sharing.isEmpty()) {
                return 0;
            }
            return sharing.get().replicasOf(name).filter(r -> r > 0).orElse(1);
        }

        boolean shared() {
            return sharing.flatMap(s -> s.replicasOf(name)).filter(r -> r > 1).isPresent();
        }

        boolean renamed() {
            return sharing.isPresent() && sharing.get().isRenamed(name) && sharing.get().replicasOf(name).isPresent();
        }

        String productName(String... parts) {
            List<String> kept = new ArrayList<>(parts.length + 1);
            for (String part : parts) {
                if (!part.isEmpty()) {
                    kept.add(Sanitiser.sanitise(part));
                }
            }
            if (kept.isEmpty()) {
                return "";
            }
            if (shared() && !renamed()) {
                kept.add("SHARED");
            }
            return String.join("-", kept);
        }
    }
}
