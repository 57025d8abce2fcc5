package dev.kgpu.simulator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlacementTest {

    private static final Node NODE = new NodeBuilder().withNewMetadata().withName("kgpu-sim-node")
            .withLabels(Map.of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count", "8"))
            .endMetadata().build();
    private static final String MISMATCH = "node(s) didn't match Pod's node affinity/selector";

    @Test
    void aNodeSelectorMustMatchTheNodesLabels() {
        assertThat(Placement.excludes(selector(Map.of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB")), NODE)).isEmpty();
        assertThat(Placement.excludes(selector(Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")), NODE))
                .contains(MISMATCH);
    }

    @Test
    void requiredNodeAffinityOnTheNodesNameAsTheValidatorUsesIt() {
        assertThat(Placement.excludes(affinity("metadata.name", "In", List.of("kgpu-sim-node"), true), NODE)).isEmpty();
        assertThat(Placement.excludes(affinity("metadata.name", "In", List.of("other-node"), true), NODE)).contains(MISMATCH);
        assertThat(Placement.excludes(affinity("metadata.name", "NotIn", List.of("kgpu-sim-node"), true), NODE))
                .contains(MISMATCH);
    }

    @Test
    void requiredNodeAffinityOnLabels() {
        assertThat(Placement.excludes(affinity("nvidia.com/gpu.count", "Gt", List.of("4"), false), NODE)).isEmpty();
        assertThat(Placement.excludes(affinity("nvidia.com/gpu.count", "Lt", List.of("4"), false), NODE)).contains(MISMATCH);
        assertThat(Placement.excludes(affinity("nvidia.com/mig.capable", "Exists", List.of(), false), NODE)).contains(MISMATCH);
        assertThat(Placement.excludes(affinity("nvidia.com/mig.capable", "DoesNotExist", List.of(), false), NODE)).isEmpty();
    }

    @Test
    void theDeviceManagerSeesExtendedResourceLimitsOnly() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("ml").endMetadata().withNewSpec()
                .addNewContainer().withName("main").withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("2")).addToLimits("cpu", new Quantity("500m"))
                .addToRequests("nvidia.com/mig-1g.10gb", new Quantity("1")).endResources().endContainer()
                .endSpec().build();

        var spec = PodRunner.podSpec("ml/p", pod);

        assertThat(spec.name()).isEqualTo("ml/p");
        assertThat(spec.totalLimits()).containsExactlyInAnyOrderEntriesOf(Map.of("nvidia.com/gpu", 2L, "nvidia.com/mig-1g.10gb", 1L));
    }

    @Test
    void aFractionalGpuIsRefused() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("ml").endMetadata().withNewSpec()
                .addNewContainer().withName("main").withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("500m")).endResources().endContainer().endSpec().build();

        assertThatThrownBy(() -> PodRunner.podSpec("ml/p", pod))
                .hasMessage("limit of nvidia.com/gpu in container main was '500m' but it must be a positive whole number");
    }

    private static Pod selector(Map<String, String> selector) {
        return new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewSpec().withNodeSelector(selector)
                .addNewContainer().withName("main").endContainer().endSpec().build();
    }

    private static Pod affinity(String key, String operator, List<String> values, boolean field) {
        NodeSelectorRequirement requirement = new NodeSelectorRequirement(key, operator, values);
        return new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewSpec()
                .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm()
                .withMatchFields(field ? List.of(requirement) : List.of())
                .withMatchExpressions(field ? List.of() : List.of(requirement))
                .endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
                .addNewContainer().withName("main").endContainer().endSpec().build();
    }
}
