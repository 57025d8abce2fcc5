package dev.kgpu.plugin.devices;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The GPUs of a node and the links between them, read once per start of the plugin's servers.
 * Immutable.
 */
public final class NodeInventory {

    private final List<Gpu> gpus;
    private final Map<String, GpuLink> links;
    private final DriverInfo driver;

    /**
     * @param links  the connection of each unordered pair of GPUs, keyed by {@link #pairKey(String, String)};
     *               pairs without an entry count as {@link PcieProximity#ACROSS_NUMA_NODES} with no NVLink
     * @param driver the driver's and CUDA's versions
     */
    public NodeInventory(List<Gpu> gpus, Map<String, GpuLink> links, DriverInfo driver) {
        this.gpus = List.copyOf(gpus);
        this.links = Map.copyOf(links);
        this.driver = Objects.requireNonNull(driver, "driver");
    }

    /** An inventory whose driver versions are not known ({@link DriverInfo#UNKNOWN}). */
    public NodeInventory(List<Gpu> gpus, Map<String, GpuLink> links) {
        this(gpus, links, DriverInfo.UNKNOWN);
    }

    public static NodeInventory withoutTopology(List<Gpu> gpus) {
        return new NodeInventory(gpus, Map.of());
    }

    public List<Gpu> gpus() {
        return gpus;
    }

    public DriverInfo driver() {
        return driver;
    }

    public Optional<Gpu> gpu(String uuid) {
        return gpus.stream().filter(g -> g.uuid().equals(uuid)).findFirst();
    }

    /** The link between two different GPUs. */
    public GpuLink link(String gpuA, String gpuB) {
        GpuLink link = links.get(pairKey(gpuA, gpuB));
        return link != null ? link : new GpuLink(PcieProximity.ACROSS_NUMA_NODES, 0);
    }

    /** The key of an unordered pair of GPU UUIDs. */
    public static String pairKey(String gpuA, String gpuB) {
        Objects.requireNonNull(gpuA);
        Objects.requireNonNull(gpuB);
        return gpuA.compareTo(gpuB) <= 0 ? gpuA + "|" + gpuB : gpuB + "|" + gpuA;
    }

    /** Builds the link map from a function of two GPUs. */
    public static Map<String, GpuLink> linksOf(List<Gpu> gpus, java.util.function.BiFunction<Gpu, Gpu, GpuLink> link) {
        Map<String, GpuLink> map = new HashMap<>();
        for (int i = 0; i < gpus.size(); i++) {
            for (int j = i + 1; j < gpus.size(); j++) {
                map.put(pairKey(gpus.get(i).uuid(), gpus.get(j).uuid()), link.apply(gpus.get(i), gpus.get(j)));
            }
        }
        return map;
    }
}
