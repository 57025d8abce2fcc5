package dev.kgpu.sim.scheduler;

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

class SchedulerTest {

    private static final Node NODE = new NodeBuilder().withNewMetadata().withName("kgpu-sim-node")
            .withLabels(Map.of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count", "8"))
            .endMetadata()
            .withNewStatus().withAllocatable(Map.of("cpu", new Quantity("8"), "nvidia.com/gpu", new Quantity("2"),
                    "nvidia.com/mig-1g.10gb", new Quantity("1"))).endStatus()
            .build();
    private static final String MISMATCH = "node(s) didn't match Pod's node affinity/selector";

    private final Scheduler scheduler = Scheduler.standard();

    @Test
    void aNodeSelectorMustMatchTheNodesLabels() {
        assertThat(scheduler.filter(selector(Map.of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB")), NODE, List.of())).isEmpty();
        assertThat(scheduler.filter(selector(Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")), NODE, List.of()))
                .contains(MISMATCH);
    }

    @Test
    void requiredNodeAffinityOnTheNodesNameAsTheValidatorUsesIt() {
        assertThat(scheduler.filter(affinity("metadata.name", "In", List.of("kgpu-sim-node"), true), NODE, List.of())).isEmpty();
        assertThat(scheduler.filter(affinity("metadata.name", "In", List.of("other-node"), true), NODE, List.of()))
                .contains(MISMATCH);
        assertThat(scheduler.filter(affinity("metadata.name", "NotIn", List.of("kgpu-sim-node"), true), NODE, List.of()))
                .contains(MISMATCH);
    }

    @Test
    void requiredNodeAffinityOnLabels() {
        assertThat(scheduler.filter(affinity("nvidia.com/gpu.count", "Gt", List.of("4"), false), NODE, List.of())).isEmpty();
        assertThat(scheduler.filter(affinity("nvidia.com/gpu.count", "Lt", List.of("4"), false), NODE, List.of()))
                .contains(MISMATCH);
        assertThat(scheduler.filter(affinity("nvidia.com/mig.capable", "Exists", List.of(), false), NODE, List.of()))
                .contains(MISMATCH);
        assertThat(scheduler.filter(affinity("nvidia.com/mig.capable", "DoesNotExist", List.of(), false), NODE, List.of()))
                .isEmpty();
    }

    @Test
    void extendedResourcesMustFitTheAllocatableLessThePodsOnTheNode() {
        Pod two = gpus("two", "nvidia.com/gpu", 2);

        assertThat(scheduler.filter(two, NODE, List.of())).isEmpty();
        assertThat(scheduler.filter(two, NODE, List.of(gpus("holder", "nvidia.com/gpu", 1))))
                .contains("Insufficient nvidia.com/gpu");
        assertThat(scheduler.filter(gpus("mig", "nvidia.com/mig-1g.10gb", 1), NODE, List.of(gpus("holder", "nvidia.com/gpu", 2))))
                .isEmpty();
        assertThat(scheduler.filter(gpus("h100", "nvidia.com/mig-1g.20gb", 1), NODE, List.of()))
                .as("a resource the node does not have").contains("Insufficient nvidia.com/mig-1g.20gb");
    }

    @Test
    void extendedResourcesAreTheContainersLimitsElseRequests() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("ml").endMetadata().withNewSpec()
                .addNewContainer().withName("main").withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("2")).addToLimits("cpu", new Quantity("500m"))
                .addToRequests("nvidia.com/mig-1g.10gb", new Quantity("1")).endResources().endContainer()
                .addNewContainer().withName("sidecar").withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().endContainer()
                .endSpec().build();

        assertThat(ExtendedResources.byContainer(pod)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "main", Map.of("nvidia.com/mig-1g.10gb", 1L, "nvidia.com/gpu", 2L), "sidecar", Map.of("nvidia.com/gpu", 1L)));
        assertThat(ExtendedResources.total(pod)).containsExactlyInAnyOrderEntriesOf(
                Map.of("nvidia.com/gpu", 3L, "nvidia.com/mig-1g.10gb", 1L));
    }

    @Test
    void aFractionalGpuIsRefused() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("ml").endMetadata().withNewSpec()
                .addNewContainer().withName("main").withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("500m")).endResources().endContainer().endSpec().build();

        assertThatThrownBy(() -> ExtendedResources.byContainer(pod))
                .hasMessage("limit of nvidia.com/gpu in container main was '500m' but it must be a positive whole number");
    }

    private static Pod gpus(String name, String resource, int amount) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata().withNewSpec()
                .addNewContainer().withName("main").withNewResources()
                .addToLimits(resource, new Quantity(Integer.toString(amount))).endResources().endContainer()
                .endSpec().build();
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
