package dev.kgpu.gpucheck.compare;

import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.NvmlNodeReader;
import dev.kgpu.gpucheck.smi.FakeNvidiaSmi;
import dev.kgpu.gpucheck.smi.SmiXml;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * nvml-ffm's reading of the mock (the real FFM path) against the fake nvidia-smi built from the same profile:
 * everything matches on every shipped kind of node, and one value changed in nvidia-smi's XML is exactly one
 * mismatch naming the field and the GPU.
 */
class NodeComparisonTest {

    private final MockNvml mock = MockNvml.load();

    @AfterEach
    void reset() {
        mock.reset();
    }

    private NodeValues nvml(String profile) {
        mock.useProfile(profile);
        mock.freezeTelemetry();
        try (Nvml nvml = Nvml.open()) {
            return NvmlNodeReader.read(nvml, "mock");
        }
    }

    private static NodeValues smi(String xml, MockProfile profile) {
        return SmiXml.parse(xml, "fake nvidia-smi", SmiXml.parseComputeCaps(FakeNvidiaSmi.computeCaps(profile)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"dgx-h100", "rtx3060", "h100-mig", "mig-mixed", "dgx-a100"})
    void theMockAndItsProfileAgreeOnEveryField(String name) {
        NodeValues nvml = nvml(name);
        MockProfile profile = MockNvml.profile(name);
        NodeValues smi = smi(FakeNvidiaSmi.xml(profile), profile);

        List<Finding> findings = NodeComparison.compare(nvml, smi, smi);

        assertThat(findings).filteredOn(f -> f.agreement() != Agreement.MATCH).isEmpty();
        assertThat(findings).hasSize(3 + nvml.gpus().size() * NodeComparison.gpuFieldOrder().size());
    }

    @Test
    void oneWrongValueIsOneMismatchNamingTheFieldAndTheGpu() {
        NodeValues nvml = nvml("dgx-h100");
        MockProfile profile = MockNvml.profile("dgx-h100");
        String xml = FakeNvidiaSmi.xml(profile);
        int gpu3 = xml.indexOf("<gpu id=\"00000000:61:00.0\">");
        String wrong = xml.substring(0, gpu3) + xml.substring(gpu3).replaceFirst("<total>81559 MiB</total>", "<total>40960 MiB</total>");

        List<Finding> findings = NodeComparison.compare(nvml, smi(xml, profile), smi(wrong, profile));
        assertThat(findings).as("total is not a moving value: only the reading before counts")
                .filteredOn(f -> f.agreement() == Agreement.MISMATCH).isEmpty();

        List<Finding> mismatches = NodeComparison.compare(nvml, smi(wrong, profile), smi(xml, profile)).stream()
                .filter(f -> f.agreement() == Agreement.MISMATCH).toList();
        assertThat(mismatches).extracting(Finding::line).containsExactly(
                "nvml GPU 3 GPU-4d5e6f7a-8b9c-4d0e-9f2a-3b4c5d6e7f04: fb_memory_usage.total was '81559' but nvidia-smi says '40960' (±1); off by 40599");
    }

    @Test
    void aMovingValueMayLieBetweenTheReadingsButNotBeyondTheTolerance() {
        NodeValues nvml = nvml("dgx-h100");
        MockProfile profile = MockNvml.profile("dgx-h100");
        String xml = FakeNvidiaSmi.xml(profile);
        String warmer = xml.replace("<gpu_temp>31 C</gpu_temp>", "<gpu_temp>37 C</gpu_temp>");
        String hot = xml.replace("<gpu_temp>31 C</gpu_temp>", "<gpu_temp>35 C</gpu_temp>");

        assertThat(NodeComparison.compare(nvml, smi(xml, profile), smi(warmer, profile)))
                .filteredOn(f -> f.agreement() == Agreement.MISMATCH).isEmpty();
        assertThat(NodeComparison.compare(nvml, smi(hot, profile), smi(hot, profile)))
                .filteredOn(f -> f.agreement() == Agreement.MISMATCH)
                .extracting(Finding::field).hasSize(8).containsOnly("temperature.gpu_temp");
    }

    @Test
    void aGpuNvidiaSmiDoesNotListIsAMismatch() {
        NodeValues nvml = nvml("rtx3060");
        MockProfile profile = MockNvml.profile("rtx3060");
        String xml = FakeNvidiaSmi.xml(profile).replace("00000000:01:00.0", "00000000:02:00.0")
                .replace("GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93", "GPU-other");

        assertThat(NodeComparison.compare(nvml, smi(xml, profile), smi(xml, profile)))
                .filteredOn(f -> f.agreement() == Agreement.MISMATCH).extracting(Finding::note)
                .contains("nvidia-smi lists no GPU at 00000000:01:00.0 or with UUID GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93",
                        "nvml-ffm does not list this GPU");
    }
}
