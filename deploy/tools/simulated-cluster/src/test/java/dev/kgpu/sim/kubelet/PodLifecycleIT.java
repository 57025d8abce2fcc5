package dev.kgpu.sim.kubelet;

import dev.kgpu.sim.apiserver.ApiServer;
import dev.kgpu.sim.runtime.CdiInjection;
import dev.kgpu.sim.runtime.NvidiaContainerRuntime;
import dev.kgpu.sim.runtime.SimulatedGpus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pod's life on the simulated node: the shared scheduler and kubelet ({@link SchedulerAndKubelet}) against the
 * simulated API server, admitting through the simulated kubelet's device manager and a two-GPU device plugin,
 * running containers with the NVIDIA container runtime. GPU 0 is a plain GPU, GPU 1 has MIG on (CUDA cannot run
 * on it whole).
 */
class PodLifecycleIT {

    private static final String NODE = "sim-node";
    private static final String PLAIN = "GPU-11111111-1111-4111-8111-111111111111";
    private static final String MIG_ON = "GPU-22222222-2222-4222-8222-222222222222";
    private static final String SAMPLE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0";
    private static final String SLEEPER = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04";

    @TempDir
    Path dir;

    private ApiServer api;
    private SimulatedKubelet kubelet;
    private FakeGpuPlugin plugin;
    private SchedulerAndKubelet runner;
    private KubernetesClient client;

    @BeforeEach
    void node() throws Exception {
        api = ApiServer.start(0);
        client = api.client();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                .addToLabels("kubernetes.io/hostname", NODE).endMetadata().build()).create();
        kubelet = SimulatedKubelet.start(dir.resolve("dp"), dir.resolve("pr/kubelet.sock"), client, NODE,
                Map.of("cpu", new Quantity("2")));
        plugin = new FakeGpuPlugin(dir.resolve("dp/nvidia-gpu.sock"), List.of(PLAIN, MIG_ON))
                .serveAndRegister(kubelet.devices().socket());
        kubelet.devices().awaitResource("nvidia.com/gpu", r -> r.allocatable() == 2, Duration.ofSeconds(60));
        // the scheduler reads the Node's allocatable, which the kubelet publishes after its device list
        await("the Node's allocatable", () -> client.nodes().withName(NODE).get(),
                n -> n.getStatus() != null && n.getStatus().getAllocatable() != null
                        && new Quantity("2").equals(n.getStatus().getAllocatable().get("nvidia.com/gpu")));
        SimulatedGpus gpus = SimulatedGpus.of("550.54.15", List.of(
                new SimulatedGpus.Gpu(0, PLAIN, "NVIDIA A100-SXM4-80GB", 0, "0000:07:00.0", false, false, List.of()),
                new SimulatedGpus.Gpu(1, MIG_ON, "NVIDIA A100-SXM4-80GB", 1, "0000:0f:00.0", false, true,
                        List.of(new SimulatedGpus.Mig(0, "MIG-33333333-3333-4333-8333-333333333333", "7g.80gb")))));
        runner = SchedulerAndKubelet.forNode(client, NODE).deviceManager(kubelet)
                .runtime(new NvidiaContainerRuntime(gpus, Optional.empty(), new CdiInjection(List.of())))
                .logs(api.logs()).start();
    }

    @AfterEach
    void stop() {
        runner.close();
        plugin.close();
        kubelet.close();
        api.close();
    }

    @Test
    void aCudaSampleOnAPlainGpuSucceedsAndFreesItsGpu() throws Exception {
        create(pod("sample", SAMPLE, "Never", 1));

        Pod pod = await("sample Succeeded", () -> get("sample"), p -> "Succeeded".equals(phase(p)));

        assertThat(pod.getSpec().getNodeName()).isEqualTo(NODE);
        assertThat(pod.getStatus().getContainerStatuses().getFirst().getState().getTerminated().getReason()).isEqualTo("Completed");
        assertThat(client.pods().inNamespace("ml").withName("sample").inContainer("main").getLog()).contains("Test PASSED");
        assertThat(kubectlLog("sample", "main")).contains("Test PASSED");
        assertThat(kubelet.devices().pods()).isEmpty();
        assertThat(events("sample")).extracting(Event::getReason).contains("Scheduled");
    }

    @Test
    void aThirdGpuPodStaysPendingUntilAGpuIsFreed() {
        create(pod("holder-a", SLEEPER, "Always", 1));
        create(pod("holder-b", SLEEPER, "Always", 1));
        await("holders Running", () -> get("holder-b"), b -> "Running".equals(phase(b)) && "Running".equals(phase(get("holder-a"))));

        create(pod("third", SLEEPER, "Always", 1));
        Pod pending = await("third Unschedulable", () -> get("third"), p -> condition(p).contains("Unschedulable"));

        assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(pending.getStatus().getConditions().getFirst().getMessage())
                .isEqualTo("0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
        assertThat(events("third")).extracting(Event::getReason).contains("FailedScheduling");

        client.pods().inNamespace("ml").withName("holder-a").delete();
        Pod running = await("third Running", () -> get("third"), p -> "Running".equals(phase(p)));
        assertThat(running.getSpec().getNodeName()).isEqualTo(NODE);
        assertThat(api.logs().get("ml", "third", Optional.of("main")).orElseThrow()).contains("nvidia-smi -L");
    }

    @Test
    void aCudaSampleGivenAWholeMigGpuFailsAsCudaWould() {
        create(pod("holder", SLEEPER, "Always", 1));
        await("holder Running", () -> get("holder"), p -> "Running".equals(phase(p)));
        assertThat(kubelet.devices().pods().get("ml/holder").deviceIds("nvidia.com/gpu")).containsExactly(PLAIN);

        create(pod("sample", SAMPLE, "Never", 1));
        Pod failed = await("sample Failed", () -> get("sample"), p -> "Failed".equals(phase(p)));

        assertThat(failed.getStatus().getContainerStatuses().getFirst().getState().getTerminated().getExitCode()).isEqualTo(1);
        assertThat(api.logs().get("ml", "sample", Optional.empty()).orElseThrow())
                .contains("error code no CUDA-capable device is detected");
    }

    @Test
    void aPodBoundByHandThatDoesNotFitIsRejectedByTheKubelet() {
        Pod pod = pod("greedy", SLEEPER, "Always", 3);
        pod.getSpec().setNodeName(NODE);
        create(pod);

        Pod failed = await("greedy Failed", () -> get("greedy"), p -> "Failed".equals(phase(p)));

        assertThat(failed.getStatus().getReason()).isEqualTo("OutOfnvidia.com/gpu");
        assertThat(failed.getStatus().getMessage()).isEqualTo("Pod was rejected: Node didn't have enough resource: nvidia.com/gpu");
    }

    @Test
    void podsForOtherNodesOrSelectorsAreNotRunHere() {
        Pod elsewhere = pod("elsewhere", SLEEPER, "Always", 1);
        elsewhere.getSpec().setNodeName("other-node");
        create(elsewhere);
        Pod h100 = pod("wants-h100", SLEEPER, "Always", 1);
        h100.getSpec().setNodeSelector(Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"));
        create(h100);

        Pod pending = await("wants-h100 Unschedulable", () -> get("wants-h100"), p -> condition(p).contains("Unschedulable"));

        assertThat(pending.getStatus().getConditions().getFirst().getMessage())
                .isEqualTo("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.");
        assertThat(get("elsewhere").getStatus()).satisfiesAnyOf(
                status -> assertThat(status).isNull(), status -> assertThat(status.getPhase()).isNull());
        assertThat(kubelet.devices().pods()).isEmpty();
    }

    private static Pod pod(String name, String image, String restartPolicy, int gpus) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata()
                .withNewSpec().withRestartPolicy(restartPolicy)
                .addNewContainer().withName("main").withImage(image)
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus))).endResources()
                .endContainer().endSpec().build();
    }

    private void create(Pod pod) {
        client.pods().inNamespace("ml").resource(pod).create();
    }

    private Pod get(String name) {
        return client.pods().inNamespace("ml").withName(name).get();
    }

    private List<Event> events(String pod) {
        return client.v1().events().inNamespace("ml").withField("involvedObject.name", pod).list().getItems();
    }

    /** The log as kubectl asks for it: no pretty, container in the query. */
    private String kubectlLog(String pod, String container) throws Exception {
        // HTTP/1.1 as kubectl speaks it here, and a deadline: a client left to upgrade can hang past its timeouts
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            return http.send(HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/namespaces/ml/pods/" + pod
                    + "/log?container=" + container)).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    private static String phase(Pod pod) {
        return pod == null || pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    private static String condition(Pod pod) {
        return pod == null || pod.getStatus() == null || pod.getStatus().getConditions() == null ? ""
                : pod.getStatus().getConditions().toString();
    }

    private static <T> T await(String what, Supplier<T> probe, Predicate<T> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        T last = null;
        while (System.nanoTime() - deadline < 0) {
            last = probe.get();
            if (last != null && done.test(last)) {
                return last;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        throw new AssertionError("timed out waiting for " + what + "; last: " + last);
    }
}
