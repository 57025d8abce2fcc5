package dev.kgpu.validator.kubernetes;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.validator.adapters.KubernetesCluster;
import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.CudaValidator;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.PluginValidator;
import dev.kgpu.validator.core.SamplePod;
import dev.kgpu.validator.core.SamplePodRunner;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The plugin and cuda components against the Kubernetes API test server (CRUD mode), with
 * {@link ScriptedNode} playing scheduler, kubelet and container runtime and {@link SimulatedTime} standing in
 * for the wall clock. Every test ends by checking that no sample pod is left behind.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
class SamplePodValidationIT {

    static final String NS = "gpu-operator";
    static final String NODE = "gpu-node-1";
    static final Duration INTERVAL = Duration.ofSeconds(5);
    /** How long the simulated cluster may take to react to one step of the validator (a loaded machine). */
    static final Duration SETTLE = Duration.ofSeconds(60);
    static final SamplePod SAMPLE = new SamplePod("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0",
            Optional.of("IfNotPresent"), List.of(), Optional.empty());

    @KubernetesTestServer
    KubernetesServer server;

    @Inject
    KubernetesClient client;

    ScriptedNode cluster;
    SimulatedTime time;
    final AtomicInteger sleeps = new AtomicInteger();
    Runnable onSleep = () -> { };

    @BeforeEach
    void startCluster() {
        client.pods().inNamespace(NS).delete();
        client.nodes().delete();
        node(NODE, Map.of("nvidia.com/gpu", 1L), Map.of("nvidia.com/gpu", 1L));
        cluster = ScriptedNode.start(client, server, NODE);
        time = new SimulatedTime(() -> {
            sleeps.incrementAndGet();
            onSleep.run();
            cluster.awaitSettled(SETTLE);
        });
    }

    @AfterEach
    void noSamplePodIsLeftBehind() throws Exception {
        cluster.close();
        assertThat(client.pods().inNamespace(NS).withLabel("app", CudaValidator.APP_LABEL).list().getItems()).isEmpty();
        assertThat(client.pods().inNamespace(NS).withLabel("app", PluginValidator.APP_LABEL).list().getItems()).isEmpty();
    }

    private void node(String name, Map<String, Long> capacity, Map<String, Long> allocatable) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        client.nodes().withName(name).editStatus(n -> {
            n.setStatus(new io.fabric8.kubernetes.api.model.NodeStatus());
            n.getStatus().setCapacity(quantities(capacity));
            n.getStatus().setAllocatable(quantities(allocatable));
            return n;
        });
    }

    private static Map<String, Quantity> quantities(Map<String, Long> amounts) {
        Map<String, Quantity> result = new HashMap<>(Map.of("cpu", new Quantity("8"), "memory", new Quantity("32Gi")));
        amounts.forEach((k, v) -> result.put(k, new Quantity(Long.toString(v))));
        return result;
    }

    private SamplePodRunner runner(int tries) {
        return new SamplePodRunner(new KubernetesCluster(client), time, time, INTERVAL, tries);
    }

    private CudaValidator cuda() {
        return cuda(60);
    }

    private CudaValidator cuda(int tries) {
        return new CudaValidator(new KubernetesCluster(client), NODE, NS, runner(tries), SAMPLE, MigStrategy.SINGLE);
    }

    private PluginValidator plugin(boolean withWorkload, MigStrategy strategy) {
        return new PluginValidator(new KubernetesCluster(client), NODE, NS, time, time, INTERVAL, 30,
                withWorkload ? Optional.of(runner(60)) : Optional.empty(), SAMPLE, strategy, Optional.empty());
    }

    private static void assertFailure(Executable validation, Layer layer, String reasonPattern) {
        assertThatThrownBy(validation::execute).isInstanceOfSatisfying(ComponentFailure.class, e -> {
            assertThat(e.layer()).isEqualTo(layer);
            assertThat(e.reason()).matches(reasonPattern);
        });
    }

    // ---- cuda ----------------------------------------------------------------------------------------

    @Test
    void cudaPassesWhenTheSampleRunsToTestPassed() throws Exception {
        String summary = cuda().validate().summary();

        assertThat(summary).matches("pod nvidia-cuda-validator-[\\w-]+ ran the CUDA sample on gpu-node-1 with 1"
                + " nvidia.com/gpu: Test PASSED");
        assertThat(cluster.seenPods()).hasSize(1);
        assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void theSamplePodRequestsOneGpuAndIsPinnedByAffinity() throws Exception {
        onSleep = () -> {
            List<Pod> pods = client.pods().inNamespace(NS).withLabel("app", CudaValidator.APP_LABEL).list().getItems();
            assertThat(pods).hasSize(1);
            Pod pod = pods.getFirst();
            assertThat(pod.getMetadata().getGenerateName()).isEqualTo("nvidia-cuda-validator-");
            assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
            assertThat(pod.getSpec().getContainers().getFirst().getResources().getLimits())
                    .containsEntry("nvidia.com/gpu", new Quantity("1"));
            assertThat(pod.getSpec().getContainers().getFirst().getImage()).isEqualTo(SAMPLE.image());
            assertThat(pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                    .getNodeSelectorTerms().getFirst().getMatchFields().getFirst().getValues()).containsExactly(NODE);
        };

        cuda().validate();

        assertThat(sleeps.get()).isPositive();
    }

    @Test
    void pendingForLackOfGpusIsASchedulingFailure() {
        // Another workload holds the node's only GPU.
        client.pods().inNamespace(NS).resource(new PodBuilder()
                .withNewMetadata().withName("training-job").addToLabels("app", "training").endMetadata()
                .withNewSpec().withNodeName(NODE).addNewContainer().withName("main").withImage("trainer")
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1")).endResources()
                .endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();

        // the scheduler's message, from the pod's PodScheduled condition and from its FailedScheduling event
        assertFailure(() -> cuda().validate(), Layer.SCHEDULING, "pod nvidia-cuda-validator-[\\w-]+ stayed Pending for"
                + " 300 s: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu\\.; events: FailedScheduling: 0/1 nodes"
                + " are available: 1 Insufficient nvidia.com/gpu\\.");
        assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(300));
        client.pods().inNamespace(NS).withName("training-job").delete();
    }

    @Test
    void aFailedPodIsARuntimeFailureQuotingTheLog() {
        cluster.outcome(ScriptedNode.Outcome.FAIL);

        assertFailure(() -> cuda().validate(), Layer.RUNTIME, "pod nvidia-cuda-validator-[\\w-]+ failed on gpu-node-1:"
                + " container cuda-validation exited 1 \\(Error\\); last log line: 'Failed to allocate device vector A"
                + " \\(error code " + ScriptedNode.CUDA_ERROR + "\\)!'");
    }

    @Test
    void aSucceededPodWithoutTestPassedIsARuntimeFailure() {
        cluster.outcome(ScriptedNode.Outcome.NO_PASS_LINE);

        assertFailure(() -> cuda().validate(), Layer.RUNTIME, "pod nvidia-cuda-validator-[\\w-]+ succeeded but its log"
                + " has no 'Test PASSED' \\(last line: 'Done'\\)");
    }

    @Test
    void aSampleThatNeverEndsTimesOutAfterSixtyPolls() {
        cluster.outcome(ScriptedNode.Outcome.HANG);

        assertFailure(() -> cuda().validate(), Layer.RUNTIME, "pod nvidia-cuda-validator-[\\w-]+ was still Running on"
                + " gpu-node-1 after 300 s; the CUDA sample did not finish \\(GPU hung\\?\\)");
        assertThat(sleeps.get()).isEqualTo(60);
    }

    @Test
    void anImageThatDoesNotPullIsARuntimeFailure() {
        cluster.outcome(ScriptedNode.Outcome.IMAGE_PULL_BACKOFF);

        assertFailure(() -> cuda(6).validate(), Layer.RUNTIME, "pod nvidia-cuda-validator-[\\w-]+ stayed Pending on"
                + " gpu-node-1 for 30 s: container cuda-validation waiting: ImagePullBackOff: Back-off pulling image"
                + " \"nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\"");
    }

    @Test
    void aMissingRuntimeIsExplainedByThePodsEvents() {
        cluster.outcome(ScriptedNode.Outcome.NO_SANDBOX);

        assertFailure(() -> cuda(6).validate(), Layer.RUNTIME, "pod nvidia-cuda-validator-[\\w-]+ stayed Pending on"
                + " gpu-node-1 for 30 s: container cuda-validation waiting: ContainerCreating; events:"
                + " FailedCreatePodSandBox: Failed to create pod sandbox: .*no runtime for \"nvidia\" is configured");
    }

    @Test
    void transientApiErrorsOnCreateAreRetried() throws Exception {
        server.expect().post().withPath("/api/v1/namespaces/" + NS + "/pods")
                .andReturn(503, "{\"kind\":\"Status\",\"code\":503,\"message\":\"etcdserver: leader changed\"}")
                .times(2);

        assertThat(cuda().validate().summary()).endsWith("Test PASSED");
        assertThat(cluster.seenPods()).hasSize(1);
    }

    @Test
    void aPodWhoseCreateAnswerWasLostIsNotLeftBehind() throws Exception {
        server.expect().post().withPath("/api/v1/namespaces/" + NS + "/pods")
                .andReturn(503, "{\"kind\":\"Status\",\"code\":503,\"message\":\"timeout\"}").once();
        // As if the API server had made the pod before its answer was lost.
        onSleep = () -> {
            if (sleeps.get() == 1) {
                client.pods().inNamespace(NS).resource(new PodBuilder()
                        .withNewMetadata().withName("nvidia-cuda-validator-lost")
                        .addToLabels("app", CudaValidator.APP_LABEL).endMetadata()
                        .withNewSpec().withNodeName(NODE).addNewContainer().withName("cuda-validation").withImage("x")
                        .endContainer().endSpec().build()).create();
            }
        };

        assertThat(cuda().validate().summary()).endsWith("Test PASSED");
        assertThat(client.pods().inNamespace(NS).withName("nvidia-cuda-validator-lost").get()).isNull();
    }

    @Test
    void anApiServerThatKeepsFailingIsAnApiFailure() {
        server.expect().post().withPath("/api/v1/namespaces/" + NS + "/pods")
                .andReturn(503, "{\"kind\":\"Status\",\"code\":503,\"message\":\"etcdserver: request timed out\"}")
                .times(4);

        assertFailure(() -> cuda(3).validate(), Layer.API, "could not create pod nvidia-cuda-validator-\\* in"
                + " namespace gpu-operator: HTTP 503: .*");
        assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(15));
        assertThat(cluster.seenPods()).isEmpty();
    }

    @Test
    void aForbiddenRequestFailsAtOnce() {
        server.expect().post().withPath("/api/v1/namespaces/" + NS + "/pods")
                .andReturn(403, "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\",\"message\":\"pods is"
                        + " forbidden: User \\\"system:serviceaccount:gpu-operator:default\\\" cannot create resource"
                        + " \\\"pods\\\"\"}")
                .once();

        assertFailure(() -> cuda().validate(), Layer.API, "could not create pod nvidia-cuda-validator-\\* in"
                + " namespace gpu-operator: HTTP 403: .*cannot create resource .*");
        assertThat(time.elapsed()).isZero();
    }

    @Test
    void theSamplePodIsDeletedEvenWhenDeletesFailAtFirst() throws Exception {
        cluster.failDeletes(2);

        assertThat(cuda().validate().summary()).endsWith("Test PASSED");
    }

    @Test
    void aLogReadThatFailsOnceIsRetried() throws Exception {
        cluster.failLogReads(1);

        assertThat(cuda().validate().summary()).endsWith("Test PASSED");
    }

    @Test
    void aLeftoverSamplePodOnThisNodeIsDeletedFirst() throws Exception {
        client.pods().inNamespace(NS).resource(new PodBuilder()
                .withNewMetadata().withName("nvidia-cuda-validator-old").addToLabels("app", CudaValidator.APP_LABEL)
                .endMetadata()
                .withNewSpec().withNodeName(NODE).addNewContainer().withName("cuda-validation").withImage("x")
                .endContainer().endSpec().withNewStatus().withPhase("Failed").endStatus().build()).create();

        cuda().validate();

        assertThat(client.pods().inNamespace(NS).withName("nvidia-cuda-validator-old").get()).isNull();
    }

    // ---- plugin --------------------------------------------------------------------------------------

    @Test
    void pluginPassesWhenTheNodeAdvertisesGpus() throws Exception {
        assertThat(plugin(false, MigStrategy.SINGLE).validate().summary())
                .isEqualTo("node gpu-node-1 advertises {nvidia.com/gpu=1}, allocatable {nvidia.com/gpu=1}");
        assertThat(cluster.seenPods()).isEmpty();
    }

    @Test
    void pluginWithWorkloadRunsASamplePod() throws Exception {
        assertThat(plugin(true, MigStrategy.SINGLE).validate().summary())
                .matches("node gpu-node-1 advertises .*; pod nvidia-device-plugin-validator-[\\w-]+ ran the CUDA sample"
                        + " on gpu-node-1 with 1 nvidia.com/gpu: Test PASSED");
    }

    @Test
    void pluginPrefersAMigResourceUnderTheMixedStrategy() throws Exception {
        client.nodes().withName(NODE).delete();
        node(NODE, Map.of("nvidia.com/gpu", 0L, "nvidia.com/mig-1g.10gb", 2L),
                Map.of("nvidia.com/gpu", 0L, "nvidia.com/mig-1g.10gb", 2L));

        assertThat(plugin(true, MigStrategy.MIXED).validate().summary())
                .endsWith("with 1 nvidia.com/mig-1g.10gb: Test PASSED");
    }

    @Test
    void pluginWaitsForTheDevicePluginToRegister() throws Exception {
        client.nodes().withName(NODE).delete();
        node(NODE, Map.of(), Map.of());
        onSleep = () -> {
            if (sleeps.get() == 3) {
                client.nodes().withName(NODE).editStatus(n -> {
                    n.getStatus().getCapacity().put("nvidia.com/gpu", new Quantity("8"));
                    n.getStatus().getAllocatable().put("nvidia.com/gpu", new Quantity("8"));
                    return n;
                });
            }
        };

        assertThat(plugin(false, MigStrategy.SINGLE).validate().summary()).contains("{nvidia.com/gpu=8}");
        assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void aNodeWithoutGpuResourcesIsADevicePluginFailure() {
        client.nodes().withName(NODE).delete();
        node(NODE, Map.of(), Map.of());

        assertFailure(() -> plugin(false, MigStrategy.SINGLE).validate(), Layer.DEVICE_PLUGIN, "node gpu-node-1 reports"
                + " no nvidia.com/gpu or nvidia.com/mig-\\* capacity after 150 s; is the device plugin running and"
                + " registered with the kubelet\\?");
        assertThat(sleeps.get()).isEqualTo(30);
    }

    @Test
    void gpusWithNothingAllocatableAreADevicePluginFailure() {
        client.nodes().withName(NODE).delete();
        node(NODE, Map.of("nvidia.com/gpu", 4L), Map.of("nvidia.com/gpu", 0L));

        assertFailure(() -> plugin(false, MigStrategy.SINGLE).validate(), Layer.DEVICE_PLUGIN,
                "node gpu-node-1 has capacity \\{nvidia.com/gpu=4\\} but nothing allocatable after 150 s; .*");
    }

    @Test
    void aMissingNodeIsNamed() {
        client.nodes().withName(NODE).delete();

        assertFailure(() -> plugin(false, MigStrategy.SINGLE).validate(), Layer.API,
                "node gpu-node-1 does not exist \\(waited 150 s\\); is NODE_NAME set from spec.nodeName\\?");
    }

    @Test
    void transientErrorsReadingTheNodeAreRetried() throws Exception {
        server.expect().get().withPath("/api/v1/nodes/" + NODE)
                .andReturn(503, "{\"kind\":\"Status\",\"code\":503,\"message\":\"unavailable\"}").times(2);

        assertThat(plugin(false, MigStrategy.SINGLE).validate().summary()).contains("{nvidia.com/gpu=1}");
        assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(10));
    }
}
