package dev.kgpu.gpucheck.compare;

import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.Val;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class DiscoveryLabelsTest {

    private static NodeValues.GpuValues gpu(int index, String name, String mig) {
        return new NodeValues.GpuValues(index, "GPU-" + index, "00000000:0" + index + ":00.0", Map.of(
                Fields.PRODUCT_NAME, Val.text(name), Fields.FB_TOTAL, Val.num(143771), Fields.COMPUTE_CAP, Val.text("9.0"),
                Fields.MIG_CURRENT, mig == null ? Val.notAvailable("N/A") : Val.text(mig)));
    }

    private static NodeValues node(NodeValues.GpuValues... gpus) {
        return new NodeValues("test", Map.of(Fields.DRIVER_VERSION, Val.text("580.159.04"), Fields.CUDA_VERSION, Val.text("13.0")),
                List.of(gpus));
    }

    private static Map<String, String> published() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("nvidia.com/cuda.driver-version.full", "580.159.04");
        labels.put("nvidia.com/cuda.runtime-version.full", "13.0");
        labels.put("nvidia.com/gpu.product", "NVIDIA-H200");
        labels.put("nvidia.com/gpu.count", "1");
        labels.put("nvidia.com/gpu.memory", "143771");
        labels.put("nvidia.com/gpu.compute.major", "9");
        labels.put("nvidia.com/gpu.compute.minor", "0");
        labels.put("nvidia.com/gpu.family", "hopper");
        labels.put("nvidia.com/mig.capable", "true");
        labels.put("nvidia.com/gfd.timestamp", "1700000000");
        return labels;
    }

    @Test
    void theLabelsOfAnH200MatchWhatNvmlAndNvidiaSmiSay() {
        NodeValues h200 = node(gpu(0, "NVIDIA H200", "Disabled"));

        List<Finding> findings = DiscoveryLabels.compare(published(), h200, Optional.of(h200));

        assertThat(findings).isNotEmpty().allMatch(f -> f.agreement() == Agreement.MATCH);
        assertThat(findings).extracting(Finding::source).contains("nvml-ffm", "nvidia-smi");
    }

    @Test
    void aWrongOrMissingLabelIsAMismatchNamingTheLabel() {
        Map<String, String> labels = published();
        labels.put("nvidia.com/gpu.memory", "81559");
        labels.remove("nvidia.com/gpu.family");

        List<Finding> mismatches = DiscoveryLabels.compare(labels, node(gpu(0, "NVIDIA H200", "Disabled")), Optional.empty())
                .stream().filter(f -> f.agreement() == Agreement.MISMATCH).toList();

        assertThat(mismatches).extracting(Finding::line).containsExactly(
                "discovery node: nvidia.com/gpu.memory was '81559' but nvml-ffm says '143771' (exact)",
                "discovery node: nvidia.com/gpu.family was '(not reported)' but nvml-ffm says 'hopper' (exact); kgpu did not report it");
    }

    @Test
    void theModelIsTheFirstGpuWithMigOffAndMigCapableNeedsAMigMode() {
        Map<String, Val> expected = DiscoveryLabels.expected(node(gpu(0, "NVIDIA A100-SXM4-80GB", "Enabled"),
                gpu(1, "NVIDIA H100 80GB HBM3", "Disabled"), gpu(2, "NVIDIA H100 80GB HBM3", "Disabled")));
        assertThat(expected.get("nvidia.com/gpu.product")).isEqualTo(Val.text("NVIDIA-H100-80GB-HBM3"));
        assertThat(expected.get("nvidia.com/gpu.count")).isEqualTo(Val.text("2"));
        assertThat(expected.get("nvidia.com/mig.capable")).isEqualTo(Val.text("true"));

        assertThat(DiscoveryLabels.expected(node(gpu(0, "NVIDIA GeForce RTX 3060", null))).get("nvidia.com/mig.capable"))
                .isEqualTo(Val.text("false"));
    }

    @Test
    void productNamesAndFamiliesFollowGfd() {
        assertThat(DiscoveryLabels.product("NVIDIA GeForce RTX 3060 (rev. 2)")).isEqualTo("NVIDIA-GeForce-RTX-3060-rev.-2");
        assertThat(DiscoveryLabels.family(9, 0)).isEqualTo("hopper");
        assertThat(DiscoveryLabels.family(8, 9)).isEqualTo("ada-lovelace");
        assertThat(DiscoveryLabels.family(8, 6)).isEqualTo("ampere");
        assertThat(DiscoveryLabels.family(7, 5)).isEqualTo("turing");
        assertThat(DiscoveryLabels.family(10, 0)).isEqualTo("blackwell");
    }
}
