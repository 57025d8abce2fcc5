package dev.kgpu.validator.kubernetes;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.sim.dra.AllocationDrivers;
import dev.kgpu.sim.dra.GpuSlices;
import dev.kgpu.validator.adapters.KubernetesCluster;
import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.PluginValidator;
import dev.kgpu.validator.core.SamplePod;
import dev.kgpu.validator.core.SamplePodRunner;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The plugin component through DRA ({@code KGPU_PLUGIN_DEVICE_CLASS}) against the Kubernetes API test server (CRUD
 * mode): the shared scheduler and kubelet with DRA allocate the sample pod's claim by the DeviceClass's CEL selector
 * against the ResourceSlices this test publishes, an in-process driver prepares it ({@link AllocationDrivers}), and
 * the node has no {@code nvidia.com/gpu} at all. About 10 s besides Quarkus's start.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
class ClaimValidationIT {

    static final String NS = "gpu-operator";
    static final String NODE = "gpu-node-1";
    static final Duration INTERVAL = Duration.ofSeconds(5);
    static final Duration SETTLE = Duration.ofSeconds(60);
    static final SamplePod SAMPLE = new SamplePod("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0",
            Optional.of("IfNotPresent"), List.of(), Optional.empty());

    @KubernetesTestServer
    KubernetesServer server;

    @Inject
    KubernetesClient client;

    ScriptedNode cluster;
    AllocationDrivers drivers;
    SimulatedTime time;
    final AtomicReference<Pod> samplePodSeen = new AtomicReference<>();

    @BeforeEach
    void startCluster() {
        client.pods().inNamespace(NS).delete();
        client.nodes().delete();
        var dra = client.dynamicResourceAllocation().v1();
        dra.resourcesSlices().delete();
        dra.deviceClasses().delete();
        dra.resourceClaims().inNamespace(NS).delete();
        dra.resourceClaimTemplates().inNamespace(NS).delete();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        drivers = new AllocationDrivers(client, List.of(GpuSlices.DRIVER));
        cluster = ScriptedNode.startWithDra(client, server, NODE, drivers);
        time = new SimulatedTime(() -> {
            client.pods().inNamespace(NS).withLabel("app", PluginValidator.APP_LABEL).list().getItems().stream()
                    .findFirst().ifPresent(samplePodSeen::set);
            cluster.awaitSettled(SETTLE);
        });
    }

    @AfterEach
    void noSamplePodOrClaimIsLeftBehind() {
        cluster.awaitSettled(SETTLE);
        cluster.close();
        assertThat(client.pods().inNamespace(NS).withLabel("app", PluginValidator.APP_LABEL).list().getItems()).isEmpty();
        assertThat(client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(NS).list().getItems())
                .as("the sample pod's claim went with it").isEmpty();
    }

    private PluginValidator plugin(int podTries) {
        return plugin(30, podTries);
    }

    private PluginValidator plugin(int sliceTries, int podTries) {
        KubernetesCluster api = new KubernetesCluster(client);
        return new PluginValidator(api, NODE, NS, time, time, INTERVAL, sliceTries,
                Optional.of(new SamplePodRunner(api, time, time, INTERVAL, podTries)), SAMPLE, MigStrategy.SINGLE,
                Optional.of(GpuSlices.DRIVER));
    }

    private void publishTwoGpus() {
        client.dynamicResourceAllocation().v1().resourcesSlices().resource(GpuSlices.slice(NODE, 1, List.of(
                GpuSlices.gpu(0, "GPU-0", "NVIDIA A100-SXM4-80GB", 80, "550.54.15"),
                GpuSlices.gpu(1, "GPU-1", "NVIDIA A100-SXM4-80GB", 80, "550.54.15")))).create();
    }

    @Test
    void theSamplePodRunsWithAClaimOfOneDeviceOfTheClass() throws Exception {
        client.dynamicResourceAllocation().v1().deviceClasses().resource(GpuSlices.gpuClass()).create();
        publishTwoGpus();

        String summary = plugin(60).validate().summary();

        assertThat(summary).matches("node gpu-node-1 publishes 2 gpu.nvidia.com devices in its ResourceSlices"
                + " \\[gpu-0, gpu-1\\]; pod nvidia-device-plugin-validator-[\\w-]+ ran the CUDA sample on gpu-node-1"
                + " with a ResourceClaim of DeviceClass gpu.nvidia.com: Test PASSED");
        ResourceClaimTemplate template = client.dynamicResourceAllocation().v1().resourceClaimTemplates().inNamespace(NS)
                .withName("kgpu-validator-gpu-nvidia-com").get();
        assertThat(template.getSpec().getSpec().getDevices().getRequests()).singleElement().satisfies(request -> {
            assertThat(request.getName()).isEqualTo("gpu");
            assertThat(request.getExactly().getDeviceClassName()).isEqualTo("gpu.nvidia.com");
            assertThat(request.getExactly().getCount()).isEqualTo(1L);
        });
        Pod pod = samplePodSeen.get();
        assertThat(pod.getSpec().getResourceClaims()).singleElement().satisfies(claim -> {
            assertThat(claim.getName()).isEqualTo("gpu");
            assertThat(claim.getResourceClaimTemplateName()).isEqualTo("kgpu-validator-gpu-nvidia-com");
        });
        assertThat(pod.getSpec().getContainers().getFirst().getResources().getClaims()).singleElement()
                .satisfies(claim -> assertThat(claim.getName()).isEqualTo("gpu"));
        assertThat(pod.getSpec().getContainers().getFirst().getResources().getLimits()).isNullOrEmpty();
        assertThat(drivers.calls()).as("the driver prepared the pod's claim once, and unprepared it").hasSize(2);
        String claim = drivers.calls().getFirst().substring("prepare ".length());
        assertThat(claim).startsWith(NS + "/nvidia-device-plugin-validator-");
        assertThat(drivers.calls()).containsExactly("prepare " + claim, "unprepare " + claim);

        // a second pass reuses the template
        assertThat(plugin(60).validate().summary()).endsWith("Test PASSED");
    }

    @Test
    void aNodeWithoutSlicesIsADevicePluginFailure() {
        client.dynamicResourceAllocation().v1().deviceClasses().resource(GpuSlices.gpuClass()).create();

        assertThatThrownBy(() -> plugin(4, 60).validate()).isInstanceOfSatisfying(ComponentFailure.class, e -> {
            assertThat(e.layer()).isEqualTo(Layer.DEVICE_PLUGIN);
            assertThat(e.reason()).isEqualTo("node gpu-node-1 has no device of DRA driver gpu.nvidia.com in any"
                    + " ResourceSlice after 20 s; is the plugin's DRA driver running (KGPU_KUBELET_APIS=dra) and"
                    + " registered with the kubelet, and are its GPUs healthy?");
        });
        assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void aClassThatSelectsNoPublishedDeviceIsASchedulingFailure() {
        client.dynamicResourceAllocation().v1().deviceClasses().resource(GpuSlices.deviceClass(GpuSlices.DRIVER,
                "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA B200'")).create();
        publishTwoGpus();

        assertThatThrownBy(() -> plugin(3).validate()).isInstanceOfSatisfying(ComponentFailure.class, e -> {
            assertThat(e.layer()).isEqualTo(Layer.SCHEDULING);
            assertThat(e.reason()).startsWith("pod nvidia-device-plugin-validator-").contains("stayed Pending for 15 s")
                    .contains("cannot allocate all claims");
        });
    }
}
