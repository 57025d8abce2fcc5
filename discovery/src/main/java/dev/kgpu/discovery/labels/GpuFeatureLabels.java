package dev.kgpu.discovery.labels;

import dev.kgpu.config.v1.SharingStrategy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every label family GFD emits, and only those, combined in GFD's order
 * ({@code cmd/gpu-feature-discovery/main.go}: timestamp, then the device labelers, then vGPU).
 *
 * <p>The device labelers (machine type, versions, MIG capability, MPS capability, resources, GPU mode,
 * clique) emit nothing when the node has no GPUs, as in GFD.
 */
public final class GpuFeatureLabels {

    /** PCI class code of a VGA controller: a GPU in graphics mode. */
    public static final int PCI_CLASS_VGA = 0x030000;
    /** PCI class code of a 3D controller: a GPU in compute mode. */
    public static final int PCI_CLASS_3D = 0x030200;

    private static final Labeler DEVICE_LABELS = Labeler.merge(
            GpuFeatureLabels::machineType,
            GpuFeatureLabels::versions,
            GpuFeatureLabels::migCapable,
            GpuFeatureLabels::mpsCapable,
            new ResourceLabeler(),
            GpuFeatureLabels::gpuMode,
            GpuFeatureLabels::clique);

    private static final Labeler ALL = Labeler.merge(
            GpuFeatureLabels::timestamp,
            input -> input.node().gpus().isEmpty() ? Labels.empty() : DEVICE_LABELS.labels(input),
            GpuFeatureLabels::vgpu);

    private GpuFeatureLabels() {
    }

    /** The full labeler: what one labelling pass publishes. */
    public static Labeler all() {
        return ALL;
    }

    /** {@code gfd.timestamp}: the pass's time in Unix seconds, unless {@code noTimestamp}. */
    static Labels timestamp(LabelInput input) {
        if (input.settings().noTimestamp()) {
            return Labels.empty();
        }
        return Labels.of(Labels.TIMESTAMP, Long.toString(input.now().getEpochSecond()));
    }

    /** {@code gpu.machine}: the sanitised machine type. */
    static Labels machineType(LabelInput input) {
        return Labels.of("nvidia.com/gpu.machine", Sanitiser.sanitise(input.node().machineType()));
    }

    /** The deprecated {@code cuda.driver.*}/{@code cuda.runtime.*} and the current {@code *-version.*} labels. */
    static Labels versions(LabelInput input) {
        DriverVersions driver = input.node().driver().orElseThrow();
        String[] parts = driver.driverVersion().split("\\.", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw new LabelingException.InvalidDriverVersion(driver.driverVersion());
        }
        String major = parts[0];
        String minor = parts[1];
        String revision = parts.length > 2 ? parts[2] : "";
        String cudaMajor = Integer.toString(driver.cudaMajor());
        String cudaMinor = Integer.toString(driver.cudaMinor());
        return Labels.builder()
                .put("nvidia.com/cuda.driver.major", major)
                .put("nvidia.com/cuda.driver.minor", minor)
                .put("nvidia.com/cuda.driver.rev", revision)
                .put("nvidia.com/cuda.runtime.major", cudaMajor)
                .put("nvidia.com/cuda.runtime.minor", cudaMinor)
                .put("nvidia.com/cuda.driver-version.major", major)
                .put("nvidia.com/cuda.driver-version.minor", minor)
                .put("nvidia.com/cuda.driver-version.revision", revision)
                .put("nvidia.com/cuda.driver-version.full", driver.driverVersion())
                .put("nvidia.com/cuda.runtime-version.major", cudaMajor)
                .put("nvidia.com/cuda.runtime-version.minor", cudaMinor)
                .put("nvidia.com/cuda.runtime-version.full", cudaMajor + "." + cudaMinor)
                .build();
    }

    /** {@code mig.capable}: true when any GPU supports MIG. */
    static Labels migCapable(LabelInput input) {
        boolean capable = input.node().gpus().stream().anyMatch(Gpu::migCapable);
        return Labels.of("nvidia.com/mig.capable", Boolean.toString(capable));
    }

    /**
     * {@code mps.capable}: false unless the sharing strategy is MPS; then true, or a failed pass when a GPU
     * has MIG enabled (GFD fails the same way).
     */
    static Labels mpsCapable(LabelInput input) {
        if (input.settings().sharing().strategy() != SharingStrategy.MPS) {
            return Labels.of("nvidia.com/mps.capable", "false");
        }
        for (Gpu gpu : input.node().gpus()) {
            if (gpu.migEnabled()) {
                throw new LabelingException.MpsWithMig(gpu.index());
            }
        }
        return Labels.of("nvidia.com/mps.capable", "true");
    }

    /**
     * {@code gpu.mode}: {@code compute} when every GPU is a 3D controller, {@code graphics} when every GPU
     * is a VGA controller, else (mixed classes, another class, or a class that could not be read)
     * {@code unknown}.
     */
    static Labels gpuMode(LabelInput input) {
        Set<Integer> classes = new HashSet<>();
        for (Gpu gpu : input.node().gpus()) {
            if (gpu.pciClass().isEmpty()) {
                return Labels.of("nvidia.com/gpu.mode", "unknown");
            }
            classes.add(gpu.pciClass().getAsInt());
        }
        String mode = "unknown";
        if (classes.size() == 1) {
            int pciClass = classes.iterator().next();
            mode = pciClass == PCI_CLASS_VGA ? "graphics" : pciClass == PCI_CLASS_3D ? "compute" : "unknown";
        }
        return Labels.of("nvidia.com/gpu.mode", mode);
    }

    /**
     * {@code gpu.clique}: {@code <clusterUUID>.<cliqueID>} when every fabric-attached GPU is in the same
     * cluster and clique; nothing when none is attached or they disagree.
     */
    static Labels clique(LabelInput input) {
        Set<String> clusters = new TreeSet<>();
        Set<Long> cliques = new TreeSet<>();
        for (Gpu gpu : input.node().gpus()) {
            gpu.fabric().ifPresent(fabric -> {
                clusters.add(fabric.clusterUuid());
                cliques.add(fabric.cliqueId());
            });
        }
        if (clusters.size() != 1 || cliques.size() != 1) {
            return Labels.empty();
        }
        return Labels.of("nvidia.com/gpu.clique", clusters.iterator().next() + "." + cliques.iterator().next());
    }

    /** {@code vgpu.present} and the host driver's version and branch; nothing when PCI could not be read. */
    static Labels vgpu(LabelInput input) {
        if (!(input.node().vgpu() instanceof VgpuScan.Scanned(List<VgpuScan.HostDriver> hosts))) {
            return Labels.empty();
        }
        Labels.Builder labels = Labels.builder().put("nvidia.com/vgpu.present", !hosts.isEmpty());
        for (VgpuScan.HostDriver host : hosts) {
            labels.put("nvidia.com/vgpu.host-driver-version", host.version());
            labels.put("nvidia.com/vgpu.host-driver-branch", host.branch());
        }
        return labels.build();
    }

    /** The distinct GPU models of a node in index order; more than one means the labels describe only one of them. */
    public static List<String> models(NodeSnapshot node) {
        return node.gpus().stream().map(Gpu::name).distinct().toList();
    }
}
