package dev.kgpu.sim.dra;

import dev.kgpu.sim.kubelet.SchedulerAndKubelet;
import dev.kgpu.sim.runtime.ContainerLogs;
import dev.kgpu.sim.runtime.ContainerRuntime;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DRA on the shared scheduler and kubelet against a CRUD API server, with ResourceSlices this test publishes and an
 * in-process driver ({@link AllocationDrivers}): claims from templates and by name, allocated by CEL, prepared, the
 * containers given the CDI names, shared, waiting for a free device, deallocated and deleted.
 */
@EnableKubernetesMockClient(crud = true)
class DynamicResourcesIT {

    static final String NODE = "node-1";
    static final String A100 = "NVIDIA A100-SXM4-80GB";
    static final String H100 = "NVIDIA H100 80GB HBM3";
    static final Duration SETTLE = Duration.ofSeconds(60);

    KubernetesClient client;
    AllocationDrivers drivers;
    Runtime runtime;
    SchedulerAndKubelet cluster;

    /** Every container keeps running; what each was given is kept by {@code <pod>/<container>}. */
    static final class Runtime implements ContainerRuntime, ContainerLogs {
        final Map<String, List<String>> cdi = new ConcurrentHashMap<>();

        @Override
        public ContainerOutcome start(ContainerStart container) {
            cdi.put(container.pod() + "/" + container.name(), container.devices().cdiDevices());
            return new ContainerOutcome.Running("");
        }

        @Override
        public void put(String namespace, String pod, String container, String log) {
        }

        @Override
        public void remove(String namespace, String pod) {
        }
    }

    @BeforeEach
    void node() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        client.dynamicResourceAllocation().v1().deviceClasses().resource(GpuSlices.gpuClass()).create();
        drivers = new AllocationDrivers(client, List.of(GpuSlices.DRIVER));
        runtime = new Runtime();
    }

    void start(AllocationDrivers with) {
        cluster = SchedulerAndKubelet.forNode(client, NODE).dynamicResources(with).runtime(runtime).logs(runtime).start();
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aClaimFromATemplateIsAllocatedByCelPreparedAndGoesWithItsPod() {
        publish(1, GpuSlices.gpu(0, "GPU-0", A100, 80, "550.54.15"), GpuSlices.gpu(1, "GPU-1", H100, 80, "550.54.15"));
        client.dynamicResourceAllocation().v1().resourceClaimTemplates().inNamespace("ml").resource(new ResourceClaimTemplateBuilder()
                .withNewMetadata().withName("h100").withNamespace("ml").endMetadata()
                .withNewSpec().withNewMetadata().addToLabels("team", "vision").endMetadata()
                .withSpec(oneGpu("device.attributes[\"gpu.nvidia.com\"].productName == \"" + H100 + "\"")).endSpec().build()).create();
        start(drivers);

        create(podWithTemplate("trainer", "gpu", "h100"));
        cluster.awaitSettled(SETTLE);

        Pod pod = pod("trainer");
        assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
        assertThat(pod.getStatus().getResourceClaimStatuses()).hasSize(1);
        String claimName = pod.getStatus().getResourceClaimStatuses().getFirst().getResourceClaimName();
        assertThat(claimName).matches("trainer-gpu-[bcdfghjklmnpqrstvwxz2456789]{5}");
        ResourceClaim claim = claim(claimName);
        assertThat(claim.getMetadata().getAnnotations()).containsEntry(PodClaims.POD_CLAIM_NAME, "gpu");
        assertThat(claim.getMetadata().getLabels()).containsEntry("team", "vision");
        assertThat(claim.getMetadata().getOwnerReferences().getFirst().getUid()).isEqualTo(pod.getMetadata().getUid());
        var result = claim.getStatus().getAllocation().getDevices().getResults();
        assertThat(result).singleElement().satisfies(r -> {
            assertThat(r.getRequest()).isEqualTo("gpu");
            assertThat(r.getDriver()).isEqualTo(GpuSlices.DRIVER);
            assertThat(r.getPool()).isEqualTo(NODE);
            assertThat(r.getDevice()).as("the H100").isEqualTo("gpu-1");
        });
        assertThat(claim.getStatus().getAllocation().getNodeSelector().getNodeSelectorTerms().getFirst().getMatchFields()
                .getFirst().getValues()).containsExactly(NODE);
        assertThat(claim.getStatus().getReservedFor()).singleElement().satisfies(r -> {
            assertThat(r.getResource()).isEqualTo("pods");
            assertThat(r.getName()).isEqualTo("trainer");
            assertThat(r.getUid()).isEqualTo(pod.getMetadata().getUid());
        });
        assertThat(runtime.cdi.get("trainer/main")).containsExactly("k8s.gpu.nvidia.com/claim=" + claim.getMetadata().getUid() + "-gpu-1");

        client.pods().inNamespace("ml").withName("trainer").delete();
        cluster.awaitSettled(SETTLE);
        assertThat(claim(claimName)).as("the claim made for the pod goes with it").isNull();
        assertThat(drivers.calls()).containsExactly("prepare ml/" + claimName, "unprepare ml/" + claimName);
    }

    @Test
    void twoPodsShareOneClaimPreparedOnce() {
        publish(1, GpuSlices.gpu(0, "GPU-0", A100, 80, "550.54.15"), GpuSlices.gpu(1, "GPU-1", A100, 80, "550.54.15"));
        client.dynamicResourceAllocation().v1().resourceClaims().inNamespace("ml").resource(new ResourceClaimBuilder()
                .withNewMetadata().withName("shared").withNamespace("ml").endMetadata()
                .withSpec(oneGpu("device.attributes['gpu.nvidia.com'].productName == '" + A100 + "'")).build()).create();
        start(drivers);

        create(podWithClaim("reader", "gpu", "shared"));
        create(podWithClaim("writer", "gpu", "shared"));
        cluster.awaitSettled(SETTLE);

        assertThat(pod("reader").getStatus().getPhase()).isEqualTo("Running");
        assertThat(pod("writer").getStatus().getPhase()).isEqualTo("Running");
        ResourceClaim claim = claim("shared");
        String uid = claim.getMetadata().getUid();
        assertThat(claim.getStatus().getReservedFor()).extracting(r -> r.getName()).containsExactlyInAnyOrder("reader", "writer");
        assertThat(runtime.cdi.get("reader/main")).containsExactly("k8s.gpu.nvidia.com/claim=" + uid + "-gpu-0");
        assertThat(runtime.cdi.get("writer/main")).isEqualTo(runtime.cdi.get("reader/main"));
        assertThat(drivers.calls()).containsExactly("prepare ml/shared");

        client.pods().inNamespace("ml").withName("reader").delete();
        cluster.awaitSettled(SETTLE);
        assertThat(claim("shared").getStatus().getAllocation()).as("still in use by the writer").isNotNull();
        assertThat(claim("shared").getStatus().getReservedFor()).extracting(r -> r.getName()).containsExactly("writer");
        assertThat(drivers.calls()).containsExactly("prepare ml/shared");

        client.pods().inNamespace("ml").withName("writer").delete();
        cluster.awaitSettled(SETTLE);
        ResourceClaim released = claim("shared");
        assertThat(released).as("a claim by name outlives its pods").isNotNull();
        assertThat(released.getStatus().getAllocation()).as("deallocated").isNull();
        assertThat(released.getStatus().getReservedFor()).isNullOrEmpty();
        assertThat(drivers.calls()).containsExactly("prepare ml/shared", "unprepare ml/shared");
    }

    @Test
    void aPodWaitsForAFreeDeviceAndTakesTheOneStillInTheSlice() {
        publish(1, GpuSlices.gpu(0, "GPU-0", A100, 80, "550.54.15"), GpuSlices.gpu(1, "GPU-1", A100, 80, "550.54.15"));
        client.dynamicResourceAllocation().v1().resourceClaimTemplates().inNamespace("ml").resource(new ResourceClaimTemplateBuilder()
                .withNewMetadata().withName("one-gpu").withNamespace("ml").endMetadata()
                .withNewSpec().withSpec(oneGpu("true")).endSpec().build()).create();
        start(drivers);
        create(podWithTemplate("first", "gpu", "one-gpu"));
        create(podWithTemplate("second", "gpu", "one-gpu"));
        cluster.awaitSettled(SETTLE);
        create(podWithTemplate("third", "gpu", "one-gpu"));
        cluster.awaitSettled(SETTLE);

        Pod third = pod("third");
        assertThat(third.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(third.getStatus().getConditions().getFirst().getMessage())
                .isEqualTo("0/1 nodes are available: 1 cannot allocate all claims.");
        assertThat(warnings("third")).contains("FailedScheduling: 0/1 nodes are available: 1 cannot allocate all claims.");

        // gpu-0 leaves the slice (as an XID makes the plugin drop it) and its pod ends: the third pod gets gpu-0's
        // place only when a device is free in the slice, and never gpu-0
        String firstDevice = device(pod("first"));
        publish(2, GpuSlices.gpu(firstDevice.equals("gpu-0") ? 1 : 0, "GPU-x", A100, 80, "550.54.15"));
        client.pods().inNamespace("ml").withName(firstDevice.equals("gpu-0") ? "first" : "second").delete();
        cluster.awaitSettled(SETTLE);
        assertThat(pod("third").getStatus().getPhase()).as("gpu-0 left the slice").isEqualTo("Pending");

        client.pods().inNamespace("ml").withName(firstDevice.equals("gpu-0") ? "second" : "first").delete();
        cluster.awaitSettled(SETTLE);
        assertThat(pod("third").getStatus().getPhase()).isEqualTo("Running");
        assertThat(device(pod("third"))).isEqualTo("gpu-1");
    }

    @Test
    void aClaimTheDriverCannotPrepareKeepsThePodContainerCreating() {
        publish(1, GpuSlices.gpu(0, "GPU-0", A100, 80, "550.54.15"));
        client.dynamicResourceAllocation().v1().resourceClaims().inNamespace("ml").resource(new ResourceClaimBuilder()
                .withNewMetadata().withName("gpu").withNamespace("ml").endMetadata().withSpec(oneGpu("true")).build()).create();
        start(new AllocationDrivers(client, List.of()));

        create(podWithClaim("stuck", "gpu", "gpu"));
        cluster.awaitSettled(SETTLE);

        Pod stuck = pod("stuck");
        assertThat(stuck.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(stuck.getStatus().getContainerStatuses().getFirst().getState().getWaiting().getReason()).isEqualTo("ContainerCreating");
        assertThat(warnings("stuck")).containsExactly("FailedPrepareDynamicResources: Failed to prepare dynamic resources: prepare"
                + " dynamic resources: NodePrepareResources failed for ResourceClaim gpu: DRA driver gpu.nvidia.com is not registered");
    }

    @Test
    void aSelectorThatFailsNamesTheClaimAndDevice() {
        publish(1, GpuSlices.gpu(0, "GPU-0", A100, 80, "550.54.15"));
        client.dynamicResourceAllocation().v1().resourceClaims().inNamespace("ml").resource(new ResourceClaimBuilder()
                .withNewMetadata().withName("mig").withNamespace("ml").endMetadata()
                .withSpec(oneGpu("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'")).build()).create();
        start(drivers);

        create(podWithClaim("wrong", "gpu", "mig"));
        cluster.awaitSettled(SETTLE);

        assertThat(pod("wrong").getStatus().getConditions().getFirst().getMessage()).startsWith("0/1 nodes are available: 1 claim"
                + " ml/mig, request gpu: selector #0: device gpu.nvidia.com/node-1/gpu-0: CEL runtime error: ");
        assertThat(claim("mig").getStatus()).isNull();
    }

    // ---------------------------------------------------------------------------------------------------------

    void publish(long generation, io.fabric8.kubernetes.api.model.resource.v1.Device... devices) {
        ResourceSlice slice = GpuSlices.slice(NODE, generation, List.of(devices));
        var slices = client.dynamicResourceAllocation().v1().resourcesSlices();
        ResourceSlice existing = slices.withName(slice.getMetadata().getName()).get();
        if (existing == null) {
            slices.resource(slice).create();
        } else {
            slice.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
            slices.resource(slice).update();
        }
    }

    static ResourceClaimSpec oneGpu(String selector) {
        return new ResourceClaimSpecBuilder().withNewDevices().addNewRequest().withName("gpu").withNewExactly()
                .withDeviceClassName(GpuSlices.DRIVER).addNewSelector().withNewCel().withExpression(selector).endCel().endSelector()
                .endExactly().endRequest().endDevices().build();
    }

    static Pod podWithTemplate(String name, String podClaim, String template) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata().withNewSpec()
                .addNewResourceClaim().withName(podClaim).withResourceClaimTemplateName(template).endResourceClaim()
                .addNewContainer().withName("main").withImage("cuda").withNewResources().addNewClaim().withName(podClaim)
                .endClaim().endResources().endContainer().endSpec().build();
    }

    static Pod podWithClaim(String name, String podClaim, String claim) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata().withNewSpec()
                .addNewResourceClaim().withName(podClaim).withResourceClaimName(claim).endResourceClaim()
                .addNewContainer().withName("main").withImage("cuda").withNewResources().addNewClaim().withName(podClaim)
                .endClaim().endResources().endContainer().endSpec().build();
    }

    String device(Pod pod) {
        String claimName = pod.getStatus().getResourceClaimStatuses().getFirst().getResourceClaimName();
        return claim(claimName).getStatus().getAllocation().getDevices().getResults().getFirst().getDevice();
    }

    void create(Pod pod) {
        client.pods().inNamespace("ml").resource(pod).create();
    }

    Pod pod(String name) {
        return client.pods().inNamespace("ml").withName(name).get();
    }

    ResourceClaim claim(String name) {
        return client.dynamicResourceAllocation().v1().resourceClaims().inNamespace("ml").withName(name).get();
    }

    List<String> warnings(String pod) {
        return client.v1().events().inNamespace("ml").list().getItems().stream()
                .filter(e -> pod.equals(e.getInvolvedObject().getName()) && "Warning".equals(e.getType()))
                .map((Event e) -> e.getReason() + ": " + e.getMessage()).distinct().toList();
    }
}
