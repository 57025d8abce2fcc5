package dev.kgpu.validator.kubernetes;

import dev.kgpu.sim.dra.DraDrivers;
import dev.kgpu.sim.kubelet.SchedulerAndKubelet;
import dev.kgpu.sim.runtime.ContainerLogs;
import dev.kgpu.sim.runtime.ContainerRuntime;
import dev.kgpu.sim.runtime.VectorAdd;
import dev.kgpu.validator.adapters.KubernetesCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.kubernetes.client.KubernetesServer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node of the validator's tests: the shared {@link SchedulerAndKubelet} (extended resources from the Node's
 * allocatable, no device plugin) runs the validator's sample pods, and only those (labelled
 * {@code app.kubernetes.io/managed-by=kgpu-validator}; a workload a test puts on the node to hold its GPU keeps
 * the status the test gave it), with a container runtime that follows the test's script ({@link Outcome}).
 * Their logs are served by expectations of the Kubernetes API test server, which a test may also ask to fail a
 * sample pod's first log reads or deletes.
 */
final class ScriptedNode implements ContainerRuntime, ContainerLogs, AutoCloseable {

    /** What the runtime makes of a sample pod. */
    enum Outcome {
        /** vectorAdd prints Test PASSED and exits 0. */
        PASS,
        /** vectorAdd fails to allocate device memory and exits 1. */
        FAIL,
        /** The container exits 0 but never prints Test PASSED. */
        NO_PASS_LINE,
        /** The container starts and never ends. */
        HANG,
        /** The image cannot be pulled. */
        IMAGE_PULL_BACKOFF,
        /** The runtime cannot create the pod sandbox (e.g. the runtime class names no configured runtime). */
        NO_SANDBOX
    }

    /** CUDA's error in the {@link Outcome#FAIL} log. */
    static final String CUDA_ERROR = "CUDA driver version is insufficient for CUDA runtime version";

    private final KubernetesServer server;
    private SchedulerAndKubelet cluster;
    private volatile Outcome outcome = Outcome.PASS;
    private volatile int deleteFailures;
    private volatile int logFailures;

    private ScriptedNode(KubernetesServer server) {
        this.server = server;
    }

    /** Starts playing scheduler and kubelet of {@code node}. */
    static ScriptedNode start(KubernetesClient client, KubernetesServer server, String node) {
        return start(server, SchedulerAndKubelet.forNode(client, node));
    }

    /** As {@link #start(KubernetesClient, KubernetesServer, String)}, with DRA and these drivers. */
    static ScriptedNode startWithDra(KubernetesClient client, KubernetesServer server, String node, DraDrivers drivers) {
        return start(server, SchedulerAndKubelet.forNode(client, node).dynamicResources(drivers));
    }

    private static ScriptedNode start(KubernetesServer server, SchedulerAndKubelet.Builder builder) {
        ScriptedNode scripted = new ScriptedNode(server);
        scripted.cluster = builder.runtime(scripted).logs(scripted).runs(ScriptedNode::isSamplePod).start();
        return scripted;
    }

    private static boolean isSamplePod(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        return labels != null && KubernetesCluster.MANAGED_BY_VALUE.equals(labels.get(KubernetesCluster.MANAGED_BY));
    }

    void outcome(Outcome outcome) {
        this.outcome = outcome;
    }

    /** The API server answers 503 to the first {@code times} deletes of each finished sample pod. */
    void failDeletes(int times) {
        this.deleteFailures = times;
    }

    /** The API server answers 503 to the first {@code times} log reads of each sample pod. */
    void failLogReads(int times) {
        this.logFailures = times;
    }

    /** Every sample pod the scheduler has seen, in order. */
    List<String> seenPods() {
        return cluster.seenPods();
    }

    /** See {@link SchedulerAndKubelet#awaitSettled}. */
    void awaitSettled(Duration timeout) {
        cluster.awaitSettled(timeout);
    }

    @Override
    public Optional<String> createSandbox(Pod pod) {
        return outcome == Outcome.NO_SANDBOX
                ? Optional.of("rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for \"nvidia\" is configured")
                : Optional.empty();
    }

    @Override
    public ContainerOutcome start(ContainerStart container) {
        ContainerOutcome result = switch (outcome) {
            case PASS -> new ContainerOutcome.Exited(0, "Completed", "", VectorAdd.PASSED);
            case FAIL -> new ContainerOutcome.Exited(1, "Error", "", VectorAdd.failed(CUDA_ERROR));
            case NO_PASS_LINE -> new ContainerOutcome.Exited(0, "Completed", "", VectorAdd.HEADER + "Done\n");
            case HANG -> new ContainerOutcome.Running("");
            case IMAGE_PULL_BACKOFF -> new ContainerOutcome.Waiting("ImagePullBackOff",
                    "Back-off pulling image \"" + container.image() + "\"");
            case NO_SANDBOX -> throw new IllegalStateException("no sandbox, no container");
        };
        if (result instanceof ContainerOutcome.Exited && deleteFailures > 0) {
            server.expect().delete().withPath("/api/v1/namespaces/" + container.namespace() + "/pods/" + container.pod())
                    .andReturn(503, "etcd unavailable").times(deleteFailures);
        }
        return result;
    }

    /** Served on the path the validator's client reads a log from. */
    @Override
    public void put(String namespace, String pod, String container, String log) {
        String path = "/api/v1/namespaces/" + namespace + "/pods/" + pod + "/log?pretty=false&container=" + container;
        if (logFailures > 0) {
            server.expect().get().withPath(path).andReturn(503, "log service unavailable").times(logFailures);
        }
        server.expect().get().withPath(path).andReturn(200, log).always();
    }

    /** An expectation cannot be taken back; the next pod has another name. */
    @Override
    public void remove(String namespace, String pod) {
    }

    @Override
    public void close() {
        cluster.close();
    }
}
