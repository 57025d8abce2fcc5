package dev.kgpu.exporter.pods;

import dev.kgpu.exporter.config.GpuIdType;
import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.MetricType;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricFamily;
import dev.kgpu.exporter.metrics.MetricRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class DeviceAttributionTest {

    private static final Entity GPU0 = Entity.gpu(0, "GPU-aaaa", "00000000:07:00.0", "NVIDIA A100-SXM4-80GB");
    private static final Entity GPU1 = Entity.gpu(1, "GPU-bbbb", "00000000:0F:00.0", "NVIDIA A100-SXM4-80GB");
    private static final Entity GI_1_OF_1 = GPU1.instance(1, "3g.40gb");
    private static final MigInstanceLookup MIGS = uuid -> uuid.equals("MIG-cccc")
            ? Optional.of(new MigInstanceLookup.GpuInstanceKey(1, 1)) : Optional.empty();

    record Case(String description, List<ContainerDevices> devices, GpuIdType idType, boolean virtualGpus,
                Entity entity, List<PodRef> expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    private static ContainerDevices devices(String pod, String resource, String... ids) {
        return new ContainerDevices(pod, "ml", "main", resource, List.of(ids));
    }

    private static PodRef pod(String name) {
        return new PodRef(name, "ml", "main", Optional.empty());
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("a GPU by UUID", List.of(devices("p", "nvidia.com/gpu", "GPU-aaaa")), GpuIdType.UID, false,
                        GPU0, List.of(pod("p"))),
                new Case("another GPU is not attributed", List.of(devices("p", "nvidia.com/gpu", "GPU-aaaa")),
                        GpuIdType.UID, false, GPU1, List.of()),
                new Case("a GPU by device name", List.of(devices("p", "nvidia.com/gpu", "nvidia1")),
                        GpuIdType.DEVICE_NAME, false, GPU1, List.of(pod("p"))),
                new Case("device names do not match in uid mode", List.of(devices("p", "nvidia.com/gpu", "nvidia1")),
                        GpuIdType.UID, false, GPU1, List.of()),
                new Case("a MIG device maps to its GPU instance", List.of(devices("p", "nvidia.com/mig-3g.40gb", "MIG-cccc")),
                        GpuIdType.UID, false, GI_1_OF_1, List.of(pod("p"))),
                new Case("a shared MIG device (::N) maps to its GPU instance",
                        List.of(devices("p", "nvidia.com/mig-3g.40gb", "MIG-cccc::3")), GpuIdType.UID, false, GI_1_OF_1,
                        List.of(pod("p"))),
                new Case("GKE's nvidia1/gi1 maps to GPU 1 instance 1",
                        List.of(devices("p", "nvidia.com/gpu", "nvidia1/gi1")), GpuIdType.DEVICE_NAME, false, GI_1_OF_1,
                        List.of(pod("p"))),
                new Case("a time-sliced replica maps to the physical GPU",
                        List.of(devices("p", "nvidia.com/gpu", "GPU-aaaa::2")), GpuIdType.UID, false, GPU0,
                        List.of(pod("p"))),
                new Case("without virtual GPUs the last holder wins",
                        List.of(devices("p", "nvidia.com/gpu", "GPU-aaaa::0"), devices("q", "nvidia.com/gpu", "GPU-aaaa::1")),
                        GpuIdType.UID, false, GPU0, List.of(pod("q"))),
                new Case("with virtual GPUs every holder counts, with its replica",
                        List.of(devices("p", "nvidia.com/gpu", "GPU-aaaa::0"), devices("q", "nvidia.com/gpu", "GPU-aaaa::1")),
                        GpuIdType.UID, true, GPU0,
                        List.of(new PodRef("p", "ml", "main", Optional.of("0")), new PodRef("q", "ml", "main", Optional.of("1")))),
                new Case("GKE's /vgpuN replica", List.of(devices("p", "nvidia.com/gpu", "nvidia0/vgpu3")),
                        GpuIdType.DEVICE_NAME, true, GPU0, List.of(new PodRef("p", "ml", "main", Optional.of("3")))),
                new Case("other resources are ignored", List.of(devices("p", "example.com/fpga", "GPU-aaaa")),
                        GpuIdType.UID, false, GPU0, List.of()),
                new Case("NVIDIA_RESOURCE_NAMES adds resources", List.of(devices("p", "example.com/gpu", "GPU-aaaa")),
                        GpuIdType.UID, false, GPU0, List.of(pod("p"))));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void findsTheHolderOfADevice(Case c) {
        DeviceAttribution attribution = DeviceAttribution.from(c.devices, Set.of("example.com/gpu"), c.idType,
                c.virtualGpus, MIGS);
        assertThat(attribution.holdersOf(c.entity)).isEqualTo(c.expected);
    }

    @Test
    void addsPodAttributesAndRepeatsSharedSeriesPerHolder() {
        Counter util = new Counter("DCGM_FI_DEV_GPU_UTIL", MetricType.GAUGE, "GPU utilization (in %).", 1);
        MetricRow gpu0 = new MetricRow(GPU0, new TreeMap<>(Map.of("DCGM_FI_DRIVER_VERSION", "550")), new TreeMap<>(), "5");
        MetricRow gpu1 = new MetricRow(GPU1, new TreeMap<>(), new TreeMap<>(), "6");
        List<MetricFamily> families = List.of(new MetricFamily(util, List.of(gpu0, gpu1)));

        List<MetricFamily> shared = DeviceAttribution.from(List.of(devices("p", "nvidia.com/gpu", "GPU-aaaa::0"),
                devices("q", "nvidia.com/gpu", "GPU-aaaa::1")), Set.of(), GpuIdType.UID, true, MIGS).apply(families);

        assertThat(shared.getFirst().rows()).extracting(MetricRow::attributes).containsExactly(
                new TreeMap<>(Map.of("container", "main", "namespace", "ml", "pod", "p", "vgpu", "0")),
                new TreeMap<>(Map.of("container", "main", "namespace", "ml", "pod", "q", "vgpu", "1")),
                new TreeMap<>());
        assertThat(shared.getFirst().rows().getFirst().labels()).containsEntry("DCGM_FI_DRIVER_VERSION", "550");
        assertThat(DeviceAttribution.none().apply(families)).isSameAs(families);
    }
}
