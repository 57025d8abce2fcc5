package dev.kgpu.sim.kubelet;

import dev.kgpu.sim.runtime.ContainerRuntime.ContainerOutcome;
import dev.kgpu.sim.scheduler.PodEvents;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the scheduler and the kubelet write about one pod, as {@code kubectl describe pod} shows it: its binding,
 * its status (phase, conditions, container states) and its events. Writes throw
 * {@link KubernetesClientException} when the pod has gone.
 */
final class PodStatusWriter {

    private static final Set<String> SCHEDULER_EVENTS = Set.of("Scheduled", "FailedScheduling");

    private final KubernetesClient client;
    private final Pod pod;

    PodStatusWriter(KubernetesClient client, Pod pod) {
        this.client = client;
        this.pod = pod;
    }

    /** The scheduler binds the pod: {@code spec.nodeName} and a {@code Scheduled} event. */
    void bind(String nodeName) {
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).edit(p -> {
            p.getSpec().setNodeName(nodeName);
            return p;
        });
        event("Normal", "Scheduled", "Successfully assigned " + pod.getMetadata().getNamespace() + "/"
                + pod.getMetadata().getName() + " to " + nodeName);
    }

    /** Whether the pod already says it is unschedulable for {@code message}. */
    boolean isUnschedulable(String message) {
        return conditions(pod).stream().anyMatch(c -> "PodScheduled".equals(c.getType())
                && "False".equals(c.getStatus()) && message.equals(c.getMessage()));
    }

    /** {@code Pending}, {@code PodScheduled=False}, reason {@code Unschedulable}. */
    void unschedulable(String message) {
        write(status -> {
            status.setPhase("Pending");
            status.setConditions(List.of(condition("PodScheduled", "False", "Unschedulable", message)));
        });
    }

    /** The kubelet rejected the pod: {@code Failed} with its reason and message. */
    void rejected(String reason, String message) {
        write(status -> {
            status.setPhase("Failed");
            status.setReason(reason);
            status.setMessage(message);
            status.setConditions(List.of(condition("PodScheduled", "True", null, null)));
        });
    }

    /** No sandbox: {@code Pending}, every container waiting in {@code ContainerCreating}. */
    void containersCreating() {
        List<ContainerStatus> statuses = pod.getSpec().getContainers().stream()
                .map(c -> base(pod, c).withReady(false).withStarted(false).withState(new ContainerStateBuilder()
                        .withNewWaiting().withReason("ContainerCreating").endWaiting().build()).build())
                .toList();
        write(status -> {
            status.setPhase("Pending");
            status.setConditions(startedConditions("False"));
            status.setContainerStatuses(statuses);
        });
    }

    /** The containers started: the pod's phase, IP and container states. */
    void started(String phase, List<ContainerStatus> statuses, String podIp) {
        String ready = statuses.stream().allMatch(ContainerStatus::getReady) ? "True" : "False";
        write(status -> {
            status.setPhase(phase);
            status.setHostIP("127.0.0.1");
            status.setPodIP(podIp);
            status.setStartTime(Instant.now().toString());
            status.setConditions(startedConditions(ready));
            status.setContainerStatuses(statuses);
        });
    }

    /** An event about the pod, from the scheduler or the kubelet; one that cannot be written is only logged. */
    void event(String type, String reason, String message) {
        PodEvents.record(client, pod, type, reason, message, SCHEDULER_EVENTS.contains(reason) ? "default-scheduler" : "kubelet");
    }

    /**
     * The phase of a pod whose containers started with these outcomes: {@code Pending} while one never started;
     * {@code Succeeded}/{@code Failed} when all ended and {@code restartPolicy} restarts none; else {@code Running}.
     */
    static String phase(Pod pod, Map<String, ContainerOutcome> outcomes) {
        if (outcomes.values().stream().anyMatch(o -> o instanceof ContainerOutcome.Waiting)) {
            return "Pending";
        }
        boolean anyRunning = outcomes.values().stream().anyMatch(o -> switch (o) {
            case ContainerOutcome.Running running -> true;
            case ContainerOutcome.Exited exited -> restarts(pod, exited);
            case ContainerOutcome.Waiting waiting -> false;
        });
        boolean allSucceeded = outcomes.values().stream()
                .allMatch(o -> o instanceof ContainerOutcome.Exited exited && exited.exitCode() == 0);
        return anyRunning ? "Running" : allSucceeded ? "Succeeded" : "Failed";
    }

    /** Each container's state: running, terminated, waiting, or in {@code CrashLoopBackOff} when it restarts. */
    static List<ContainerStatus> containerStatuses(Pod pod, Map<String, ContainerOutcome> outcomes) {
        String now = Instant.now().toString();
        List<ContainerStatus> statuses = new ArrayList<>();
        for (Container container : pod.getSpec().getContainers()) {
            ContainerStatusBuilder status = base(pod, container).withStarted(true);
            switch (outcomes.get(container.getName())) {
                case ContainerOutcome.Running running -> status.withReady(true).withState(new ContainerStateBuilder()
                        .withNewRunning().withStartedAt(now).endRunning().build());
                case ContainerOutcome.Waiting waiting -> status.withReady(false).withStarted(false)
                        .withState(new ContainerStateBuilder().withNewWaiting().withReason(waiting.reason())
                                .withMessage(waiting.message().isEmpty() ? null : waiting.message()).endWaiting().build());
                case ContainerOutcome.Exited exited -> {
                    ContainerState terminated = new ContainerStateBuilder().withNewTerminated()
                            .withExitCode(exited.exitCode()).withReason(exited.reason())
                            .withMessage(exited.message().isEmpty() ? null : exited.message())
                            .withStartedAt(now).withFinishedAt(now).endTerminated().build();
                    if (restarts(pod, exited)) {
                        status.withReady(false).withLastState(terminated).withState(new ContainerStateBuilder()
                                .withNewWaiting().withReason("CrashLoopBackOff")
                                .withMessage("back-off restarting failed container " + container.getName())
                                .endWaiting().build());
                    } else {
                        status.withReady(false).withStarted(false).withState(terminated);
                    }
                }
            }
            statuses.add(status.build());
        }
        return statuses;
    }

    private static boolean restarts(Pod pod, ContainerOutcome.Exited exited) {
        String policy = Optional.ofNullable(pod.getSpec().getRestartPolicy()).orElse("Always");
        return policy.equals("Always") || policy.equals("OnFailure") && exited.exitCode() != 0;
    }

    private static ContainerStatusBuilder base(Pod pod, Container container) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        return new ContainerStatusBuilder().withName(container.getName())
                .withImage(container.getImage()).withImageID("simulated://" + container.getImage())
                .withContainerID("simulated://" + namespace + "." + name + "." + container.getName())
                .withRestartCount(0);
    }

    private void write(Consumer<PodStatus> change) {
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).editStatus(p -> {
            if (p.getStatus() == null) {
                p.setStatus(new PodStatus());
            }
            change.accept(p.getStatus());
            return p;
        });
    }

    private static List<PodCondition> startedConditions(String ready) {
        return List.of(condition("PodScheduled", "True", null, null), condition("Initialized", "True", null, null),
                condition("ContainersReady", ready, null, null), condition("Ready", ready, null, null));
    }

    private static List<PodCondition> conditions(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getConditions() == null ? List.of() : pod.getStatus().getConditions();
    }

    private static PodCondition condition(String type, String status, String reason, String message) {
        return new PodConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withLastTransitionTime(Instant.now().toString()).build();
    }
}
