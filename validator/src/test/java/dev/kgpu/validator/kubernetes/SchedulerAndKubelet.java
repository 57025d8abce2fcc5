package dev.kgpu.validator.kubernetes;

import dev.kgpu.validator.adapters.KubernetesCluster;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.quarkus.test.kubernetes.client.KubernetesServer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Plays the scheduler and the kubelet of one namespace against the Kubernetes API test server (CRUD mode),
 * as the validator's tests need them:
 * <ul>
 *   <li>scheduler: a pod whose required node affinity names a node is bound to it when the node's allocatable
 *       GPU resources, less what bound unfinished pods use, cover the pod's limits; otherwise it gets
 *       {@code PodScheduled=False, reason Unschedulable, "0/1 nodes are available: 1 Insufficient <resource>."};</li>
 *   <li>kubelet: a bound pod moves to the {@link Outcome} set for the test and its container log is served
 *       (the CRUD server does not serve {@code pods/log}, so an expectation for the exact log path is added).</li>
 * </ul>
 * Only pods labelled {@code app.kubernetes.io/managed-by=kgpu-validator} are acted on. Pods are watched; events are handled one at a time on the controller's own thread.
 * {@link #awaitSettled(Duration)} waits until every pod in the namespace has been handled at its current
 * resourceVersion, which is the condition tests (and {@link SimulatedTime}) wait on.
 */
final class SchedulerAndKubelet implements AutoCloseable {

    /** What the kubelet makes of a bound pod. */
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

    static final String PASS_LOG = """
            [Vector addition of 50000 elements]
            Copy input data from the host memory to the CUDA device
            CUDA kernel launch with 196 blocks of 256 threads
            Copy output data from the CUDA device to the host memory
            Test PASSED
            Done
            """;
    static final String FAIL_LOG = """
            [Vector addition of 50000 elements]
            Failed to allocate device vector A (error code CUDA driver version is insufficient for CUDA runtime version)!
            """;

    private static final Set<String> FINISHED = Set.of("Succeeded", "Failed");

    private final KubernetesClient client;
    private final KubernetesServer server;
    private final String namespace;
    private final BlockingQueue<Optional<Pod>> events = new LinkedBlockingQueue<>();
    private final Map<String, String> handledVersions = new ConcurrentHashMap<>();
    private final List<String> seenPods = new CopyOnWriteArrayList<>();
    private final Object settled = new Object();
    private volatile Outcome outcome = Outcome.PASS;
    private volatile int deleteFailures;
    private volatile int logFailures;
    private volatile RuntimeException crash;
    private Watch watch;
    private Thread worker;

    SchedulerAndKubelet(KubernetesClient client, KubernetesServer server, String namespace) {
        this.client = client;
        this.server = server;
        this.namespace = namespace;
    }

    SchedulerAndKubelet start() {
        worker = Thread.ofPlatform().name("test-scheduler-kubelet").start(this::work);
        watch = client.pods().inNamespace(namespace).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                if (action == Action.DELETED) {
                    handledVersions.remove(pod.getMetadata().getName());
                    signal();
                } else {
                    events.add(Optional.of(pod));
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                // the test is over
            }
        });
        return this;
    }

    void outcome(Outcome outcome) {
        this.outcome = outcome;
    }

    /** The API server answers 503 to the first {@code times} deletes of each finished sample pod. */
    void failDeletes(int times) {
        this.deleteFailures = times;
    }

    /** The API server answers 503 to the first {@code times} log reads of each finished sample pod. */
    void failLogReads(int times) {
        this.logFailures = times;
    }

    /** Every pod name this controller has seen, in order. */
    List<String> seenPods() {
        return List.copyOf(seenPods);
    }

    /** Waits until every pod in the namespace has been handled at its current version. */
    void awaitSettled(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (settled) {
            while (true) {
                if (crash != null) {
                    throw new AssertionError("the simulated scheduler/kubelet failed", crash);
                }
                List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();
                boolean done = pods.stream().allMatch(p ->
                        p.getMetadata().getResourceVersion().equals(handledVersions.get(p.getMetadata().getName())));
                if (done) {
                    return;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("the simulated scheduler/kubelet did not settle within " + timeout);
                }
                try {
                    settled.wait(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 50));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while waiting for the simulated cluster", e);
                }
            }
        }
    }

    private void signal() {
        synchronized (settled) {
            settled.notifyAll();
        }
    }

    private void work() {
        try {
            while (true) {
                Optional<Pod> event = events.take();
                if (event.isEmpty()) {
                    return;
                }
                Pod pod = event.get();
                String name = pod.getMetadata().getName();
                if (!seenPods.contains(name)) {
                    seenPods.add(name);
                }
                reconcile(pod);
                handledVersions.put(name, pod.getMetadata().getResourceVersion());
                signal();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            crash = e;
            signal();
        }
    }

    private void reconcile(Pod pod) {
        // Only the validator's sample pods are scheduled and run; other pods (a workload a test puts on the
        // node to hold its GPU, say) keep the status the test gave them.
        Map<String, String> labels = pod.getMetadata().getLabels();
        if (labels == null || !KubernetesCluster.MANAGED_BY_VALUE.equals(labels.get(KubernetesCluster.MANAGED_BY))
                || pod.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (phase != null && FINISHED.contains(phase)) {
            return;
        }
        if (pod.getSpec().getNodeName() == null) {
            schedule(pod);
        } else if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null
                || pod.getStatus().getContainerStatuses().isEmpty()) {
            run(pod);
        }
    }

    private void schedule(Pod pod) {
        String nodeName = affinityNode(pod);
        Node node = client.nodes().withName(nodeName).get();
        Map<String, Quantity> limits = pod.getSpec().getContainers().getFirst().getResources().getLimits();
        String resource = limits.keySet().iterator().next();
        long requested = limits.get(resource).getNumericalAmount().longValue();
        long allocatable = Optional.ofNullable(node).map(n -> n.getStatus().getAllocatable())
                .map(a -> a.get(resource)).map(q -> q.getNumericalAmount().longValue()).orElse(0L);
        long used = client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> nodeName.equals(p.getSpec().getNodeName()))
                .filter(p -> p.getStatus() == null || !FINISHED.contains(p.getStatus().getPhase()))
                .mapToLong(p -> Optional.ofNullable(p.getSpec().getContainers().getFirst().getResources().getLimits())
                        .map(l -> l.get(resource)).map(q -> q.getNumericalAmount().longValue()).orElse(0L))
                .sum();
        String name = pod.getMetadata().getName();
        if (node != null && allocatable - used >= requested) {
            client.pods().inNamespace(namespace).withName(name)
                    .edit(p -> { p.getSpec().setNodeName(nodeName); return p; });
            client.pods().inNamespace(namespace).withName(name).editStatus(p -> {
                ensureStatus(p).setPhase("Pending");
                p.getStatus().setConditions(List.of(condition("True", null, null)));
                return p;
            });
            return;
        }
        boolean alreadyUnschedulable = pod.getStatus() != null && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream().anyMatch(c -> "Unschedulable".equals(c.getReason()));
        if (!alreadyUnschedulable) {
            client.pods().inNamespace(namespace).withName(name).editStatus(p -> {
                ensureStatus(p).setPhase("Pending");
                p.getStatus().setConditions(List.of(condition("False", "Unschedulable",
                        "0/1 nodes are available: 1 Insufficient " + resource + ".")));
                return p;
            });
        }
    }

    private void run(Pod pod) {
        String name = pod.getMetadata().getName();
        String container = pod.getSpec().getContainers().getFirst().getName();
        Outcome now = outcome;
        String phase = switch (now) {
            case PASS, NO_PASS_LINE -> "Succeeded";
            case FAIL -> "Failed";
            case HANG -> "Running";
            case IMAGE_PULL_BACKOFF, NO_SANDBOX -> "Pending";
        };
        ContainerStatus status = switch (now) {
            case PASS, NO_PASS_LINE -> terminated(container, 0, "Completed");
            case FAIL -> terminated(container, 1, "Error");
            case HANG -> new ContainerStatusBuilder().withName(container).withReady(true)
                    .withState(new ContainerStateBuilder().withNewRunning().endRunning().build()).build();
            case IMAGE_PULL_BACKOFF -> new ContainerStatusBuilder().withName(container).withReady(false)
                    .withState(new ContainerStateBuilder().withNewWaiting().withReason("ImagePullBackOff")
                            .withMessage("Back-off pulling image \"" + pod.getSpec().getContainers().getFirst().getImage() + "\"")
                            .endWaiting().build()).build();
            case NO_SANDBOX -> new ContainerStatusBuilder().withName(container).withReady(false)
                    .withState(new ContainerStateBuilder().withNewWaiting().withReason("ContainerCreating")
                            .endWaiting().build()).build();
        };
        String log = switch (now) {
            case PASS -> PASS_LOG;
            case FAIL -> FAIL_LOG;
            case NO_PASS_LINE -> "[Vector addition of 50000 elements]\nDone\n";
            case HANG, IMAGE_PULL_BACKOFF, NO_SANDBOX -> null;
        };
        if (now == Outcome.NO_SANDBOX) {
            client.v1().events().inNamespace(namespace).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(name + ".").endMetadata()
                    .withNewInvolvedObject().withKind("Pod").withNamespace(namespace).withName(name).endInvolvedObject()
                    .withType("Warning").withReason("FailedCreatePodSandBox")
                    .withMessage("Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox"
                            + " runtime: no runtime for \"nvidia\" is configured")
                    .build()).create();
        }
        if (log != null) {
            String logPath = "/api/v1/namespaces/" + namespace + "/pods/" + name + "/log?pretty=false&container="
                    + container;
            if (logFailures > 0) {
                server.expect().get().withPath(logPath).andReturn(503, "log service unavailable").times(logFailures);
            }
            server.expect().get().withPath(logPath).andReturn(200, log).always();
        }
        if (FINISHED.contains(phase) && deleteFailures > 0) {
            server.expect().delete().withPath("/api/v1/namespaces/" + namespace + "/pods/" + name)
                    .andReturn(503, "etcd unavailable").times(deleteFailures);
        }
        client.pods().inNamespace(namespace).withName(name).editStatus(p -> {
            ensureStatus(p).setPhase(phase);
            p.getStatus().setContainerStatuses(List.of(status));
            return p;
        });
    }

    private static PodStatus ensureStatus(Pod pod) {
        if (pod.getStatus() == null) {
            pod.setStatus(new PodStatus());
        }
        return pod.getStatus();
    }

    private static ContainerStatus terminated(String container, int exitCode, String reason) {
        return new ContainerStatusBuilder().withName(container).withReady(false)
                .withState(new ContainerStateBuilder().withNewTerminated().withExitCode(exitCode).withReason(reason)
                        .endTerminated().build()).build();
    }

    private static PodCondition condition(String status, String reason, String message) {
        return new PodConditionBuilder().withType("PodScheduled").withStatus(status).withReason(reason)
                .withMessage(message).build();
    }

    private static String affinityNode(Pod pod) {
        return pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().getFirst().getMatchFields().getFirst().getValues().getFirst();
    }

    @Override
    public void close() throws InterruptedException {
        if (watch != null) {
            watch.close();
        }
        events.add(Optional.empty());
        if (worker != null) {
            worker.join(Duration.ofSeconds(10));
        }
    }
}
