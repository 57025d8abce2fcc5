package dev.kgpu.discovery.labels;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.discovery.labels.LabelSettings.Sharing;
import dev.kgpu.discovery.node.FakeSysfs;
import dev.kgpu.discovery.node.NodeSnapshotReader;
import dev.kgpu.discovery.node.SysfsPci;
import dev.kgpu.discovery.testing.TestSettings;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The labels of every mock NVML profile, read through the real FFM path (mock libnvidia-ml.so.1 ->
 * nvml-ffm -> NodeSnapshotReader), under each MIG strategy and sharing setting that changes them, checked
 * against {@code src/test/resources/expected/<profile>-<variant>.txt}.
 */
class ProfileLabelsTest {

    static final Instant NOW = Instant.ofEpochSecond(1_700_000_000L);
    static MockNvml mock;

    @TempDir
    Path sysfsRoot;

    record Case(String profile, String variant, LabelSettings settings) {
        @Override
        public String toString() {
            return profile + "-" + variant;
        }
    }

    static Stream<Case> cases() {
        LabelSettings none = TestSettings.labels();
        LabelSettings single = TestSettings.labels(MigStrategy.SINGLE);
        LabelSettings mixed = TestSettings.labels(MigStrategy.MIXED);
        Sharing timeSlicing = new Sharing(SharingStrategy.TIME_SLICING, Map.of("nvidia.com/gpu", 4), false);
        Sharing mps = new Sharing(SharingStrategy.MPS, Map.of("nvidia.com/gpu", 2), false);
        Sharing migTimeSlicing = new Sharing(SharingStrategy.TIME_SLICING, Map.of("nvidia.com/mig-1g.10gb", 7), false);
        return Stream.of(
                new Case("rtx3060", "none", none),
                new Case("rtx3060", "time-slicing", TestSettings.labels(timeSlicing)),
                new Case("dgx-a100", "none", none),
                new Case("dgx-a100", "single", single),
                new Case("dgx-a100", "mixed", mixed),
                new Case("dgx-h100", "none", none),
                new Case("dgx-h100", "mps", TestSettings.labels(mps)),
                new Case("mig-mixed", "none", none),
                new Case("mig-mixed", "single", single),
                new Case("mig-mixed", "mixed", mixed),
                new Case("mig-mixed", "mixed-time-slicing", TestSettings.labels(MigStrategy.MIXED, migTimeSlicing)),
                new Case("large-256", "none", none));
    }

    @BeforeAll
    static void loadMock() {
        mock = MockNvml.load();
    }

    @AfterAll
    static void resetMock() {
        mock.reset();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void labelsOfEveryProfileMatchTheExpectedFile(Case c) {
        Labels labels = labelsOf(mock, c.profile(), c.settings(), sysfsRoot);

        String expected = c.profile() + "-" + c.variant();
        assertThat(labels.asMap())
                .as("labels of %s; actual feature file:%n%s", expected, labels.toFeatureFile())
                .containsExactlyEntriesOf(ExpectedLabels.read(expected).asMap());
    }

    /** The labels of a mock profile, read through the real FFM path, with the PCI class a GPU of its kind has. */
    static Labels labelsOf(MockNvml mock, String profile, LabelSettings settings, Path sysfsRoot) {
        mock.useProfile(profile);
        try (Nvml nvml = Nvml.open()) {
            FakeSysfs sysfs = new FakeSysfs(sysfsRoot);
            // the desktop board is a VGA controller (graphics mode), data-centre boards are 3D controllers
            int pciClass = profile.equals("rtx3060") ? GpuFeatureLabels.PCI_CLASS_VGA : GpuFeatureLabels.PCI_CLASS_3D;
            for (GpuDevice device : nvml.devices()) {
                sysfs.gpu(device.pci().sysfsBusId(), pciClass);
            }
            NodeSnapshot node = new NodeSnapshotReader(new SysfsPci(sysfsRoot)).read(nvml, machineType(profile));
            return GpuFeatureLabels.all().labels(new LabelInput(node, settings, NOW));
        }
    }

    static String machineType(String profile) {
        return switch (profile) {
            case "rtx3060" -> "MS-7C56";
            case "dgx-a100" -> "DGXA100 920-23687-2530-000";
            case "dgx-h100", "large-256" -> "DGXH100";
            default -> "HGX A100 4-GPU";
        };
    }
}
