package dev.kgpu.plugin.nvml;

import dev.kgpu.nvml.TopologyLevel;
import dev.kgpu.plugin.devices.PcieProximity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How NVML's link ends, topology levels and MIG capability file become the domain's values. */
class TopologyMappingTest {

    static final String A = "0000:07:00.0";
    static final String B = "0000:0f:00.0";
    static final String SWITCH_1 = "0000:c1:00.0";
    static final String SWITCH_2 = "0000:c2:00.0";
    static final Set<String> GPUS = Set.of(A, B);

    @Test
    void directLinksCountOnce() {
        assertThat(NvmlDeviceSource.nvlinks(List.of(B, B, B), List.of(A, A, A), A, B, GPUS)).isEqualTo(3);
    }

    @Test
    void linksThroughASharedSwitchCountAsTheFewerOfTheTwo() {
        List<String> a = List.of(SWITCH_1, SWITCH_1, SWITCH_2, SWITCH_2);
        List<String> b = List.of(SWITCH_1, SWITCH_2, SWITCH_2);
        assertThat(NvmlDeviceSource.nvlinks(a, b, A, B, GPUS)).isEqualTo(3);
        assertThat(NvmlDeviceSource.nvlinks(a, List.of(), A, B, GPUS)).isZero();
    }

    @Test
    void busIdsCompareWithAndWithoutTheLongDomain() {
        assertThat(NvmlDeviceSource.normalise("00000000:0F:00.0")).isEqualTo(B);
        assertThat(NvmlDeviceSource.normalise("0000:0f:00.0")).isEqualTo(B);
    }

    @Test
    void everyTopologyLevelHasAProximity() {
        assertThat(java.util.Arrays.stream(TopologyLevel.values()).map(NvmlDeviceSource::proximity))
                .containsExactly(PcieProximity.SAME_BOARD, PcieProximity.SINGLE_SWITCH, PcieProximity.MULTIPLE_SWITCHES,
                        PcieProximity.HOST_BRIDGE, PcieProximity.SAME_NUMA_NODE, PcieProximity.ACROSS_NUMA_NODES);
    }

    @Test
    void migCapabilityMinorsComeFromTheDriversFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("mig-minors");
        Files.writeString(file, "config 1\nmonitor 2\ngpu0/gi7/access 66\ngpu0/gi7/ci0/access 67\ngpu1/gi2/access 30\n");

        MigCapabilities capabilities = MigCapabilities.read(file);

        assertThat(capabilities.minors(0, 7, 0)).containsExactly(66, 67);
        assertThat(capabilities.minors(1, 2, 0)).containsExactly(30);
        assertThat(MigCapabilities.read(dir.resolve("absent")).minors(0, 7, 0)).isEmpty();
    }

    @Test
    void aMalformedCapabilityLineIsNamed(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("mig-minors");
        Files.writeString(file, "gpu0/gi7/access sixty\n");

        assertThatThrownBy(() -> MigCapabilities.read(file)).hasMessageEndingWith(
                "mig-minors line 1 was 'gpu0/gi7/access sixty' but it must be '<capability> <minor>'");
    }
}
