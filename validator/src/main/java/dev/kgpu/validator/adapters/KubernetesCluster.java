package dev.kgpu.validator.adapters;

import dev.kgpu.agent.kubernetes.KubernetesError;
import dev.kgpu.validator.core.Cluster;
import dev.kgpu.validator.core.ClusterException;
import dev.kgpu.validator.core.GpuRequest;
import dev.kgpu.validator.core.NodeResources;
import dev.kgpu.validator.core.PodRequest;
import dev.kgpu.validator.core.PodState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The {@link Cluster} port over the fabric8 client that the Quarkus Kubernetes client extension provides.
 * Every {@link KubernetesClientException} becomes a {@link ClusterException} with the HTTP status, so the
 * core can tell a 503 (retry) from a 403 (fail now). The client's own retries should be off
 * ({@code quarkus.kubernetes-client.request-retry-backoff-limit=0}): the core retries on its own clock.
 */
public final class KubernetesCluster implements Cluster {

    /** Label on every sample pod, so leftovers can be found and users can see who made them. */
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY_VALUE = "kgpu-validator";
    /** The sample pod's claim and the template's one request, when it asks for a {@link GpuRequest.DeviceClaim}. */
    public static final String CLAIM = "gpu";
    public static final String CLAIM_TEMPLATE_PREFIX = "kgpu-validator-";

    private final KubernetesClient client;

    public KubernetesCluster(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public Optional<NodeResources> node(String name) {
        Node node = call("get node " + name, () -> client.nodes().withName(name).get());
        if (node == null) {
            return Optional.empty();
        }
        Map<String, Quantity> capacity = node.getStatus() == null ? null : node.getStatus().getCapacity();
        Map<String, Quantity> allocatable = node.getStatus() == null ? null : node.getStatus().getAllocatable();
        Map<String, String> labels = node.getMetadata() == null || node.getMetadata().getLabels() == null ? Map.of()
                : node.getMetadata().getLabels();
        return Optional.of(new NodeResources(name, units(capacity), units(allocatable), labels));
    }

    @Override
    public String createPod(PodRequest request) {
        PodBuilder pod = new PodBuilder()
                .withNewMetadata()
                    .withGenerateName(request.generateName())
                    .withNamespace(request.namespace())
                    .addToLabels("app", request.appLabel())
                    .addToLabels(MANAGED_BY, MANAGED_BY_VALUE)
                .endMetadata()
                .withNewSpec()
                    // Never: a failed vectorAdd must end the pod as Failed, not restart until the wait runs out.
                    .withRestartPolicy("Never")
                    // Required affinity on the node's name keeps the scheduler in the loop (spec.nodeName would
                    // bypass it), so a node without free GPUs shows up as "Insufficient nvidia.com/gpu".
                    .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .addNewNodeSelectorTerm()
                            .withMatchFields(new NodeSelectorRequirement("metadata.name", "In",
                                    List.of(request.nodeName())))
                        .endNodeSelectorTerm()
                    .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
                    .addNewToleration().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule")
                    .endToleration()
                    .withImagePullSecrets(request.pullSecrets().stream().map(LocalObjectReference::new).toList())
                    .withRuntimeClassName(request.runtimeClass().orElse(null))
                    .addNewContainer()
                        .withName(request.container())
                        .withImage(request.image())
                        .withImagePullPolicy(request.pullPolicy().orElse(null))
                        .withResources(resources(request.gpu()))
                        .withNewSecurityContext().withAllowPrivilegeEscalation(false).endSecurityContext()
                    .endContainer()
                .endSpec();
        if (request.gpu() instanceof GpuRequest.DeviceClaim claim) {
            String template = ensureClaimTemplate(request.namespace(), claim.deviceClass());
            pod.editSpec().addNewResourceClaim().withName(CLAIM).withResourceClaimTemplateName(template)
                    .endResourceClaim().endSpec();
        }
        Pod created = call("create pod " + request.generateName() + "* in namespace " + request.namespace(),
                () -> client.pods().inNamespace(request.namespace()).resource(pod.build()).create());
        return created.getMetadata().getName();
    }

    /** One of the extended resource, or the pod's claim {@value #CLAIM}. */
    private static ResourceRequirements resources(GpuRequest gpu) {
        return switch (gpu) {
            case GpuRequest.ExtendedResource resource -> new ResourceRequirementsBuilder()
                    .addToLimits(resource.resource(), new Quantity("1"))
                    .addToRequests(resource.resource(), new Quantity("1")).build();
            case GpuRequest.DeviceClaim claim -> new ResourceRequirementsBuilder().addNewClaim().withName(CLAIM).endClaim().build();
        };
    }

    /**
     * The name of the ResourceClaimTemplate asking for exactly one device of {@code deviceClass}
     * ({@code kgpu-validator-<class, dots as dashes>}), created when missing (one another validator created meanwhile
     * is fine). It stays for the next pass; each sample pod's claim goes with the pod.
     */
    private String ensureClaimTemplate(String namespace, String deviceClass) {
        String name = CLAIM_TEMPLATE_PREFIX + deviceClass.replace('.', '-');
        var templates = client.dynamicResourceAllocation().v1().resourceClaimTemplates().inNamespace(namespace);
        if (call("get ResourceClaimTemplate " + namespace + "/" + name, () -> templates.withName(name).get()) != null) {
            return name;
        }
        ResourceClaimTemplate template = new ResourceClaimTemplateBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace)
                    .addToLabels(MANAGED_BY, MANAGED_BY_VALUE).endMetadata()
                .withNewSpec().withNewSpec().withNewDevices()
                    .addNewRequest().withName(CLAIM).withNewExactly().withDeviceClassName(deviceClass)
                        .withAllocationMode("ExactCount").withCount(1L).endExactly().endRequest()
                .endDevices().endSpec().endSpec().build();
        try {
            call("create ResourceClaimTemplate " + namespace + "/" + name, () -> templates.resource(template).create());
        } catch (ClusterException e) {
            if (e.code() != 409) {
                throw e;
            }
        }
        return name;
    }

    @Override
    public List<String> sliceDevices(String nodeName, String driver) {
        List<ResourceSlice> slices = call("list ResourceSlices",
                () -> client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems());
        return slices.stream()
                .filter(s -> s.getSpec() != null && nodeName.equals(s.getSpec().getNodeName()) && driver.equals(s.getSpec().getDriver()))
                .flatMap(s -> Optional.ofNullable(s.getSpec().getDevices()).orElse(List.of()).stream())
                .map(Device::getName)
                .toList();
    }

    @Override
    public Optional<PodState> pod(String namespace, String name) {
        Pod pod = call("get pod " + namespace + "/" + name,
                () -> client.pods().inNamespace(namespace).withName(name).get());
        return Optional.ofNullable(pod).map(KubernetesCluster::state);
    }

    @Override
    public String log(String namespace, String pod, String container) {
        String log = call("get the log of pod " + namespace + "/" + pod,
                () -> client.pods().inNamespace(namespace).withName(pod).inContainer(container).getLog());
        return log == null ? "" : log;
    }

    @Override
    public void deletePod(String namespace, String name) {
        call("delete pod " + namespace + "/" + name,
                () -> client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete());
    }

    @Override
    public List<String> warningEvents(String namespace, String podName) {
        List<Event> events = call("list events of pod " + namespace + "/" + podName,
                () -> client.v1().events().inNamespace(namespace)
                        .withField("involvedObject.name", podName).list().getItems());
        if (events.isEmpty()) {
            // Not every server (the API test server, for one) answers this field selector: ask for all.
            events = call("list events in namespace " + namespace,
                    () -> client.v1().events().inNamespace(namespace).list().getItems());
        }
        return events.stream()
                .filter(e -> e.getInvolvedObject() != null && podName.equals(e.getInvolvedObject().getName()))
                .filter(e -> "Warning".equals(e.getType()))
                .sorted(Comparator.comparing(e -> Optional.ofNullable(e.getLastTimestamp()).orElse("")))
                .map(e -> e.getReason() + ": " + e.getMessage())
                .distinct()
                .toList();
    }

    @Override
    public List<String> podNames(String namespace, String appLabel, String nodeName) {
        List<Pod> pods = call("list pods app=" + appLabel + " in namespace " + namespace,
                () -> client.pods().inNamespace(namespace).withLabel("app", appLabel).list().getItems());
        return pods.stream().filter(pod -> targets(pod, nodeName)).map(pod -> pod.getMetadata().getName()).toList();
    }

    private static boolean targets(Pod pod, String nodeName) {
        if (pod.getSpec() == null) {
            return false;
        }
        if (nodeName.equals(pod.getSpec().getNodeName())) {
            return true;
        }
        var affinity = pod.getSpec().getAffinity();
        if (affinity == null || affinity.getNodeAffinity() == null
                || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return false;
        }
        return affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()
                .stream()
                .flatMap(term -> term.getMatchFields() == null ? java.util.stream.Stream.empty() : term.getMatchFields().stream())
                .anyMatch(field -> "metadata.name".equals(field.getKey()) && field.getValues() != null
                        && field.getValues().contains(nodeName));
    }

    private static PodState state(Pod pod) {
        var status = pod.getStatus();
        Optional<PodState.Condition> scheduled = Optional.empty();
        List<PodState.ContainerState> containers = new ArrayList<>();
        if (status != null) {
            if (status.getConditions() != null) {
                for (PodCondition condition : status.getConditions()) {
                    if ("PodScheduled".equals(condition.getType())) {
                        scheduled = Optional.of(new PodState.Condition(condition.getStatus(), condition.getReason(),
                                condition.getMessage()));
                    }
                }
            }
            if (status.getInitContainerStatuses() != null) {
                status.getInitContainerStatuses().forEach(c -> containers.add(container(c)));
            }
            if (status.getContainerStatuses() != null) {
                status.getContainerStatuses().forEach(c -> containers.add(container(c)));
            }
        }
        return new PodState(pod.getMetadata().getName(), status == null ? null : status.getPhase(),
                Optional.ofNullable(pod.getSpec() == null ? null : pod.getSpec().getNodeName()).filter(s -> !s.isBlank()),
                scheduled,
                Optional.ofNullable(status == null ? null : status.getReason()).filter(s -> !s.isBlank()),
                Optional.ofNullable(status == null ? null : status.getMessage()).filter(s -> !s.isBlank()),
                containers);
    }

    private static PodState.ContainerState container(ContainerStatus status) {
        var state = status.getState();
        if (state != null && state.getTerminated() != null) {
            var terminated = state.getTerminated();
            return new PodState.ContainerState(status.getName(), PodState.ContainerState.State.TERMINATED,
                    terminated.getReason(), terminated.getMessage(),
                    terminated.getExitCode() == null ? 0 : terminated.getExitCode());
        }
        if (state != null && state.getWaiting() != null) {
            return new PodState.ContainerState(status.getName(), PodState.ContainerState.State.WAITING,
                    state.getWaiting().getReason(), state.getWaiting().getMessage(), 0);
        }
        if (state != null && state.getRunning() != null) {
            return new PodState.ContainerState(status.getName(), PodState.ContainerState.State.RUNNING, "", "", 0);
        }
        return new PodState.ContainerState(status.getName(), PodState.ContainerState.State.UNKNOWN, "", "", 0);
    }

    private static Map<String, Long> units(Map<String, Quantity> quantities) {
        Map<String, Long> result = new TreeMap<>();
        if (quantities != null) {
            quantities.forEach((name, quantity) -> {
                BigDecimal amount = quantity.getNumericalAmount();
                result.put(name, amount.longValue());
            });
        }
        return result;
    }

    private static <T> T call(String what, Supplier<T> request) {
        try {
            return request.get();
        } catch (KubernetesClientException e) {
            KubernetesError error = KubernetesError.of(e);
            throw new ClusterException(error.code(), what + ": " + error.describe(), e);
        }
    }
}
