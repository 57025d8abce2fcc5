package dev.kgpu.discovery.labels;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.IntStream;

/** In-memory GPUs and nodes for label tests, shaped like the mock NVML profiles. */
final class TestNodes {

    static final String A100 = "NVIDIA A100-SXM4-80GB";

    private TestNodes() {
    }

    static Gpu a100(int index, boolean migEnabled, List<MigInstance> migs) {
        return new Gpu(index, A100, 81920, 8, 0, true, migEnabled, migs, OptionalInt.of(GpuFeatureLabels.PCI_CLASS_3D), Optional.empty());
    }

    static Gpu rtx3060(int index) {
        return new Gpu(index, "NVIDIA GeForce RTX 3060", 12288, 8, 6, false, false, List.of(),
                OptionalInt.of(GpuFeatureLabels.PCI_CLASS_VGA), Optional.empty());
    }

    static Gpu t4(int index) {
        return new Gpu(index, "Tesla T4", 15360, 7, 5, false, false, List.of(),
                OptionalInt.of(GpuFeatureLabels.PCI_CLASS_3D), Optional.empty());
    }

    static MigInstance mig1g10gb() {
        return new MigInstance("1g.10gb", 9728, 14, 1, 1, 1, 0, 0, 0, 0);
    }

    static MigInstance mig3g40gb() {
        return new MigInstance("3g.40gb", 40192, 42, 3, 3, 3, 2, 0, 0, 0);
    }

    static MigInstance mig1g10gbMe() {
        return new MigInstance("1g.10gb+me", 9728, 14, 1, 1, 1, 1, 0, 1, 1);
    }

    static NodeSnapshot node(List<Gpu> gpus) {
        return new NodeSnapshot(Optional.of(new DriverVersions("550.54.15", 12, 4)), gpus, "DGX A100", VgpuScan.none());
    }

    static List<Gpu> a100s(int count, boolean migEnabled, List<MigInstance> migs) {
        return IntStream.range(0, count).mapToObj(i -> a100(i, migEnabled, migs)).toList();
    }
}
