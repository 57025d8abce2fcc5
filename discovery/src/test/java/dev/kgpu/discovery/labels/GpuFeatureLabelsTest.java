package dev.kgpu.discovery.labels;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.discovery.labels.LabelSettings.Sharing;
import dev.kgpu.discovery.testing.TestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;

import static dev.kgpu.discovery.labels.TestNodes.a100;
import static dev.kgpu.discovery.labels.TestNodes.a100s;
import static dev.kgpu.discovery.labels.TestNodes.mig1g10gb;
import static dev.kgpu.discovery.labels.TestNodes.mig1g10gbMe;
import static dev.kgpu.discovery.labels.TestNodes.mig3g40gb;
import static dev.kgpu.discovery.labels.TestNodes.node;
import static dev.kgpu.discovery.labels.TestNodes.rtx3060;
import static dev.kgpu.discovery.labels.TestNodes.t4;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Label sets of in-memory nodes that no mock profile covers, each checked against an expected file. */
class GpuFeatureLabelsTest {

    static final Instant NOW = Instant.ofEpochSecond(1_700_000_000L);

    record Case(String description, NodeSnapshot node, LabelSettings settings, String expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static final Sharing TIME_SLICING_4 = new Sharing(SharingStrategy.TIME_SLICING, Map.of("nvidia.com/gpu", 4), false);

    static Stream<Case> cases() {
        LabelSettings defaults = TestSettings.labels();
        return Stream.of(
                new Case("two models: the lowest-indexed GPU's model is labelled, with its own count",
                        node(List.of(t4(0), a100(1, false, List.of()), a100(2, false, List.of()))), defaults, "inmemory/mixed-models"),
                new Case("a MIG-enabled model loses to a MIG-disabled one",
                        node(List.of(a100(0, true, List.of(mig1g10gb())), t4(1))), defaults, "inmemory/mixed-models"),
                new Case("single: two profiles on the node is invalid",
                        node(List.of(a100(0, true, List.of(mig1g10gb())), a100(1, true, List.of(mig3g40gb())))),
                        TestSettings.labels(MigStrategy.SINGLE), "inmemory/single-invalid"),
                new Case("single: a MIG-enabled GPU without MIG devices is invalid",
                        node(List.of(a100(0, true, List.of()), a100(1, true, List.of(mig1g10gb())))),
                        TestSettings.labels(MigStrategy.SINGLE), "inmemory/single-invalid"),
                new Case("single: MIG enabled on some GPUs only is invalid",
                        node(List.of(a100(0, true, List.of(mig1g10gb())), a100(1, false, List.of()))),
                        TestSettings.labels(MigStrategy.SINGLE), "inmemory/single-invalid"),
                new Case("single: no GPU has MIG enabled labels like none, plus the strategy",
                        node(a100s(2, false, List.of())), TestSettings.labels(MigStrategy.SINGLE), "inmemory/single-mig-off"),
                new Case("single with time-slicing: MIG devices are the shared gpu resource",
                        node(a100s(2, true, List.of(mig1g10gb(), mig1g10gb()))),
                        TestSettings.labels(MigStrategy.SINGLE, TIME_SLICING_4), "inmemory/single-time-slicing"),
                new Case("mixed: +me profiles become .me resources; replicas per MIG resource",
                        node(List.of(a100(0, true, List.of(mig1g10gb(), mig1g10gbMe())), a100(1, true, List.of(mig3g40gb())))),
                        TestSettings.labels(MigStrategy.MIXED, 
                                new Sharing(SharingStrategy.TIME_SLICING, Map.of("nvidia.com/mig-1g.10gb", 2), false)),
                        "inmemory/mixed-me"),
                new Case("time-slicing renamed by default: no -SHARED suffix",
                        node(List.of(t4(0))),
                        TestSettings.labels(new Sharing(SharingStrategy.TIME_SLICING, Map.of("nvidia.com/gpu", 4), true)),
                        "inmemory/time-slicing-renamed"),
                new Case("MPS: mps.capable, shared product",
                        node(List.of(t4(0))),
                        TestSettings.labels(new Sharing(SharingStrategy.MPS, Map.of("nvidia.com/gpu", 2), false)),
                        "inmemory/mps"),
                new Case("graphics and compute GPUs together: mode unknown; no timestamp",
                        node(List.of(rtx3060(0), new Gpu(1, "NVIDIA GeForce RTX 3060", 12288, 8, 6, false, false, List.of(),
                                OptionalInt.empty(), Optional.empty()))),
                        TestSettings.withoutTimestamp(defaults), "inmemory/mode-unknown"),
                new Case("fabric-attached GPUs in one clique",
                        node(List.of(fabric(0, "b1028956-cfa2-0990-bf4a-5da9abb51763", 7), fabric(1, "b1028956-cfa2-0990-bf4a-5da9abb51763", 7))),
                        defaults, "inmemory/clique"),
                new Case("fabric-attached GPUs in two cliques: no clique label",
                        node(List.of(fabric(0, "b1028956-cfa2-0990-bf4a-5da9abb51763", 7), fabric(1, "b1028956-cfa2-0990-bf4a-5da9abb51763", 8))),
                        defaults, "inmemory/clique-disagree"),
                new Case("no GPUs: timestamp and vGPU only (gpu.present is gpu-operator's, never discovery's)",
                        node(List.of()), defaults, "inmemory/no-gpus"),
                new Case("NVML unavailable: the same minimal labels",
                        NodeSnapshot.withoutNvml("DGX A100", VgpuScan.none()), defaults, "inmemory/no-gpus"),
                new Case("vGPU guest with unreadable PCI config: no vGPU labels; two-part driver version",
                        new NodeSnapshot(Optional.of(new DriverVersions("535.104", 12, 2)), List.of(t4(0)), "", new VgpuScan.Unreadable("no sysfs")),
                        defaults, "inmemory/vgpu-unreadable-short-driver"),
                new Case("vGPU guest",
                        new NodeSnapshot(Optional.of(new DriverVersions("535.104.05", 12, 2)), List.of(t4(0)), "VMware7,1",
                                new VgpuScan.Scanned(List.of(new VgpuScan.HostDriver("535.104.06", "r535_00")))),
                        defaults, "inmemory/vgpu"));
    }

    static Gpu fabric(int index, String cluster, long clique) {
        return new Gpu(index, "NVIDIA GB200", 189471, 10, 0, true, false, List.of(),
                OptionalInt.of(GpuFeatureLabels.PCI_CLASS_3D), Optional.of(new Gpu.Fabric(cluster, clique)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void labelsMatchTheExpectedFile(Case c) {
        Labels labels = GpuFeatureLabels.all().labels(new LabelInput(c.node(), c.settings(), NOW));

        assertThat(labels.asMap()).containsExactlyEntriesOf(ExpectedLabels.read(c.expected()).asMap());
    }

    @Test
    void mpsWithMigEnabledFailsThePass() {
        LabelInput input = new LabelInput(node(a100s(1, true, List.of(mig1g10gb()))),
                TestSettings.labels(new Sharing(SharingStrategy.MPS, Map.of("nvidia.com/gpu", 2), false)), NOW);

        assertThatThrownBy(() -> GpuFeatureLabels.all().labels(input))
                .isInstanceOf(LabelingException.MpsWithMig.class)
                .hasMessageContaining("GPU 0 has MIG enabled");
    }

    @Test
    void aDriverVersionWithoutMinorFailsThePass() {
        LabelInput input = new LabelInput(new NodeSnapshot(Optional.of(new DriverVersions("550", 12, 4)), List.of(t4(0)), "x", VgpuScan.none()),
                TestSettings.labels(), NOW);

        assertThatThrownBy(() -> GpuFeatureLabels.all().labels(input))
                .isInstanceOf(LabelingException.InvalidDriverVersion.class)
                .hasMessage("driver version was '550' but it must have the form X.Y[.Z]");
    }

    @Test
    void sanitiserKeepsGfdsCharactersAndJoinsWordsWithDashes() {
        assertThat(Sanitiser.sanitise("NVIDIA GeForce RTX 3060")).isEqualTo("NVIDIA-GeForce-RTX-3060");
        assertThat(Sanitiser.sanitise("  Tesla  V100-SXM2-16GB (rev a1) ")).isEqualTo("Tesla-V100-SXM2-16GB-rev-a1");
        assertThat(Sanitiser.sanitise("PowerEdge R750xa/0X2H7V")).isEqualTo("PowerEdge-R750xa0X2H7V");
        assertThat(Sanitiser.sanitise("")).isEmpty();
    }

    @Test
    void architectureFamiliesFollowGfd() {
        assertThat(ResourceLabeler.architectureFamily(7, 0)).isEqualTo("volta");
        assertThat(ResourceLabeler.architectureFamily(7, 5)).isEqualTo("turing");
        assertThat(ResourceLabeler.architectureFamily(8, 6)).isEqualTo("ampere");
        assertThat(ResourceLabeler.architectureFamily(8, 9)).isEqualTo("ada-lovelace");
        assertThat(ResourceLabeler.architectureFamily(9, 0)).isEqualTo("hopper");
        assertThat(ResourceLabeler.architectureFamily(10, 0)).isEqualTo("blackwell");
        assertThat(ResourceLabeler.architectureFamily(12, 0)).isEqualTo("blackwell");
        assertThat(ResourceLabeler.architectureFamily(13, 0)).isEqualTo("rubin");
        assertThat(ResourceLabeler.architectureFamily(4, 0)).isEqualTo("undefined");
    }
}
