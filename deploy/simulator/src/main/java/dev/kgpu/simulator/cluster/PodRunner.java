package dev.kgpu.simulator.cluster;

import dev.kgpu.plugin.kubelet.v1beta1.ContainerAllocateResponse;
import dev.kgpu.plugin.kubelet.v1beta1.Mount;
import dev.kgpu.plugin.testing.kubelet.KubeletListener;
import dev.kgpu.plugin.testing.kubelet.KubeletSimulator;
import dev.kgpu.plugin.testing.kubelet.PodAdmission;
import dev.kgpu.plugin.testing.kubelet.PodAllocation;
import dev.kgpu.plugin.testing.kubelet.PodSpec;
import dev.kgpu.plugin.testing.kubelet.ResourceNames;
import dev.kgpu.plugin.testing.kubelet.ResourceState;
import dev.kgpu.simulator.runtime.ContainerRuntime;
import dev.kgpu.simulator.runtime.ContainerRuntime.ContainerInput;
import dev.kgpu.simulator.runtime.ContainerRuntime.ContainerOutcome;
import dev.kgpu.simulator.runtime.ContainerRuntime.GpuInjection;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The simulated node's scheduler and the kubelet's pod workers: it watches every pod in the API server and
 * gives each one that may run on this node to the simulated kubelet's device manager.
 *
 * <ul>
 *   <li>Scheduling: a pod whose {@code nodeSelector} or required node affinity excludes the node, or whose
 *       extended-resource limits do not fit the node's free allocatable, stays {@code Pending} with
 *       {@code PodScheduled=False}, reason {@code Unschedulable} and the scheduler's message
 *       ({@code 0/1 nodes are available: 1 Insufficient nvidia.com/gpu.}) and a {@code FailedScheduling}
 *       event; it is tried again whenever devices are freed or the node's devices change. A pod that fits is
 *       bound ({@code spec.nodeName}).</li>
 *   <li>Admission: the device manager allocates through the real device plugin (GetPreferredAllocation,
 *       Allocate). A failed admission ends the pod {@code Failed} with the kubelet's reason and message; a
 *       pod bound to the node by hand ({@code spec.nodeName}) that does not fit is rejected as the kubelet
 *       rejects it ({@code OutOf<resource>}).</li>
 *   <li>Running: each container goes to the {@link ContainerRuntime} with what Allocate gave it; its log is
 *       served on {@code pods/log}. A pod whose containers all ended is {@code Succeeded} or {@code Failed}
 *       under {@code restartPolicy: Never} (and {@code OnFailure} when they succeeded); otherwise it stays
 *       {@code Running}, an ended container in {@code CrashLoopBackOff}.</li>
 *   <li>Devices are freed when the pod ends or is deleted.</li>
 * </ul>
 *
 * <p>Pod events and retries are handled one at a time on the {@code pod-runner} thread, in order. Only pods
 * bound to this node or not bound at all are looked at.
 */
public final class PodRunner implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PodRunner.class.getName());
    private static final Set<String> FINISHED = Set.of("Succeeded", "Failed");

    private sealed interface Event {
        record Changed(Pod pod) implements Event {
        }

        record Deleted(Pod pod) implements Event {
        }

        record Retry(String why) implements Event {
        }

        record Stop() implements Event {
        }
    }

    private final KubernetesClient client;
    private final String nodeName;
    private final KubeletSimulator kubelet;
    private final ContainerRuntime runtime;
    private final PodLogs logs;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    // owned by the pod-runner thread
    private final Map<String, String> handledByUid = new HashMap<>();
    private final Map<String, String> unschedulable = new LinkedHashMap<>();
    private final AtomicInteger podIps = new AtomicInteger(1);
    private Watch watch;
    private Thread worker;

    public PodRunner(KubernetesClient client, String nodeName, KubeletSimulator kubelet, ContainerRuntime runtime,
                     PodLogs logs) {
        this.client = client;
        this.nodeName = nodeName;
        this.kubelet = kubelet;
        this.runtime = runtime;
        this.logs = logs;
    }

    /** Starts watching pods; pods that exist already are handled first. */
    public PodRunner start() {
        worker = Thread.ofPlatform().name("pod-runner").daemon().start(this::work);
        kubelet.addListener(new KubeletListener() {
            @Override
            public void onReleased(PodAllocation allocation) {
                events.add(new Event.Retry("devices of " + allocation.podName() + " freed"));
            }

            @Override
            public void onDevicesChanged(ResourceState resource) {
                events.add(new Event.Retry(resource.resourceName() + " changed"));
            }
        });
        watch = client.pods().inAnyNamespace().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                switch (action) {
                    case ADDED, MODIFIED -> events.add(new Event.Changed(pod));
                    case DELETED -> events.add(new Event.Deleted(pod));
                    default -> {
                    }
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                LOG.log(System.Logger.Level.WARNING, "the pod watch closed: {0}", cause.getMessage());
            }
        });
        return this;
    }

    @Override
    public void close() {
        if (watch != null) {
            watch.close();
        }
        events.add(new Event.Stop());
        if (worker != null) {
            try {
                worker.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void work() {
        while (true) {
            Event event;
            try {
                event = events.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                switch (event) {
                    case Event.Stop stop -> {
                        return;
                    }
                    case Event.Changed changed -> reconcile(changed.pod());
                    case Event.Deleted deleted -> forget(deleted.pod());
                    case Event.Retry retry -> retryUnschedulable(retry.why());
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "handling " + event + " failed", e);
            }
        }
    }

    private void retryUnschedulable(String why) {
        if (unschedulable.isEmpty()) {
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "retrying {0} unschedulable pods: {1}", unschedulable.size(), why);
        for (String key : List.copyOf(unschedulable.keySet())) {
            String[] parts = key.split("/", 2);
            Pod pod = client.pods().inNamespace(parts[0]).withName(parts[1]).get();
            if (pod == null) {
                unschedulable.remove(key);
            } else {
                reconcile(pod);
            }
        }
    }

    private void reconcile(Pod pod) {
        String uid = pod.getMetadata().getUid();
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String key = SimulatedKubelet.podKey(namespace, name);
        if (handledByUid.containsKey(uid)) {
            return;
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            forget(pod);
            return;
        }
        String boundTo = pod.getSpec().getNodeName();
        if (boundTo != null && !boundTo.isBlank() && !boundTo.equals(nodeName)) {
            return;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (phase != null && FINISHED.contains(phase)) {
            return;
        }
        boolean bound = boundTo != null && !boundTo.isBlank();
        if (!bound) {
            Optional<String> excluded = Placement.excludes(pod, node());
            if (excluded.isPresent()) {
                markUnschedulable(pod, "0/1 nodes are available: 1 " + excluded.get() + ".");
                return;
            }
        }
        PodSpec spec;
        try {
            spec = podSpec(key, pod);
        } catch (IllegalArgumentException e) {
            fail(pod, bound, "UnexpectedAdmissionError", e.getMessage());
            return;
        }
        PodAdmission admission = kubelet.admit(spec);
        switch (admission) {
            case PodAdmission.Pending pending when bound -> {
                String resource = pending.reason().replaceFirst("^Insufficient ", "");
                fail(pod, true, "OutOf" + resource, "Pod was rejected: Node didn't have enough resource: " + resource);
            }
            case PodAdmission.Pending pending -> markUnschedulable(pod, "0/1 nodes are available: 1 " + pending.reason() + ".");
            case PodAdmission.Failed failed -> fail(pod, bound, failed.reason(), failed.message());
            case PodAdmission.Admitted admitted -> {
                unschedulable.remove(key);
                handledByUid.put(uid, key);
                try {
                    if (!bound) {
                        bind(pod);
                    }
                    run(pod, admitted.allocation());
                } catch (KubernetesClientException e) {
                    LOG.log(System.Logger.Level.WARNING, "pod {0} went away while it started: {1}", key, e.getMessage());
                    forget(pod);
                }
            }
        }
    }

    private Node node() {
        return client.nodes().withName(nodeName).get();
    }

    /** The device manager's view of the pod: its containers' extended-resource limits (else requests). */
    static PodSpec podSpec(String key, Pod pod) {
        List<PodSpec.Container> containers = new ArrayList<>();
        for (Container container : pod.getSpec().getContainers()) {
            Map<String, Long> limits = new LinkedHashMap<>();
            var resources = container.getResources();
            Map<String, Quantity> declared = new LinkedHashMap<>();
            if (resources != null && resources.getRequests() != null) {
                declared.putAll(resources.getRequests());
            }
            if (resources != null && resources.getLimits() != null) {
                declared.putAll(resources.getLimits());
            }
            declared.forEach((resource, quantity) -> {
                if (ResourceNames.isExtendedResourceName(resource)) {
                    var amount = quantity.getNumericalAmount();
                    if (amount.signum() <= 0 || amount.stripTrailingZeros().scale() > 0) {
                        throw new IllegalArgumentException("limit of " + resource + " in container " + container.getName()
                                + " was '" + quantity + "' but it must be a positive whole number");
                    }
                    limits.put(resource, amount.longValueExact());
                }
            });
            containers.add(new PodSpec.Container(container.getName(), limits));
        }
        return new PodSpec(key, containers);
    }

    private void bind(Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        client.pods().inNamespace(namespace).withName(name).edit(p -> {
            p.getSpec().setNodeName(nodeName);
            return p;
        });
        event(pod, "Normal", "Scheduled", "Successfully assigned " + namespace + "/" + name + " to " + nodeName);
    }

    private void markUnschedulable(Pod pod, String message) {
        String key = SimulatedKubelet.podKey(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        boolean already = message.equals(unschedulable.get(key));
        unschedulable.put(key, message);
        boolean written = pod.getStatus() != null && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream().anyMatch(c -> "PodScheduled".equals(c.getType())
                && "False".equals(c.getStatus()) && message.equals(c.getMessage()));
        if (written) {
            return;
        }
        try {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .editStatus(p -> {
                        PodStatus status = status(p);
                        status.setPhase("Pending");
                        status.setConditions(List.of(condition("PodScheduled", "False", "Unschedulable", message)));
                        return p;
                    });
            if (!already) {
                event(pod, "Warning", "FailedScheduling", message);
                LOG.log(System.Logger.Level.INFO, "pod {0} is unschedulable: {1}", key, message);
            }
        } catch (KubernetesClientException e) {
            LOG.log(System.Logger.Level.DEBUG, "pod {0} went away: {1}", key, e.getMessage());
            unschedulable.remove(key);
        }
    }

    private void fail(Pod pod, boolean bound, String reason, String message) {
        String key = SimulatedKubelet.podKey(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        unschedulable.remove(key);
        handledByUid.put(pod.getMetadata().getUid(), key);
        LOG.log(System.Logger.Level.INFO, "pod {0} failed admission: {1}: {2}", key, reason, message);
        try {
            if (!bound) {
                bind(pod);
            }
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .editStatus(p -> {
                        PodStatus status = status(p);
                        status.setPhase("Failed");
                        status.setReason(reason);
                        status.setMessage(message);
                        status.setConditions(List.of(condition("PodScheduled", "True", null, null)));
                        return p;
                    });
        } catch (KubernetesClientException e) {
            LOG.log(System.Logger.Level.DEBUG, "pod {0} went away: {1}", key, e.getMessage());
        }
    }

    private void run(Pod pod, PodAllocation allocation) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String restartPolicy = Optional.ofNullable(pod.getSpec().getRestartPolicy()).orElse("Always");
        String now = Instant.now().toString();
        List<ContainerStatus> statuses = new ArrayList<>();
        boolean anyRunning = false;
        boolean allSucceeded = true;
        for (Container container : pod.getSpec().getContainers()) {
            GpuInjection injection = allocation.containers().stream()
                    .filter(c -> c.name().equals(container.getName())).findFirst()
                    .map(c -> injection(c.response())).orElse(GpuInjection.none());
            Map<String, String> env = new LinkedHashMap<>();
            if (container.getEnv() != null) {
                for (EnvVar var : container.getEnv()) {
                    if (var.getValue() != null) {
                        env.put(var.getName(), var.getValue());
                    }
                }
            }
            ContainerOutcome outcome = runtime.run(new ContainerInput(container.getName(), container.getImage(), env, injection));
            logs.put(namespace, name, container.getName(), outcome.log());
            ContainerStatusBuilder status = new ContainerStatusBuilder().withName(container.getName())
                    .withImage(container.getImage()).withImageID("simulated://" + container.getImage())
                    .withContainerID("simulated://" + namespace + "." + name + "." + container.getName())
                    .withRestartCount(0).withStarted(true);
            switch (outcome) {
                case ContainerOutcome.Running running -> {
                    anyRunning = true;
                    status.withReady(true).withState(new ContainerStateBuilder().withNewRunning().withStartedAt(now)
                            .endRunning().build());
                }
                case ContainerOutcome.Exited exited -> {
                    allSucceeded &= exited.exitCode() == 0;
                    ContainerState terminated = new ContainerStateBuilder().withNewTerminated()
                            .withExitCode(exited.exitCode()).withReason(exited.reason())
                            .withMessage(exited.message().isEmpty() ? null : exited.message())
                            .withStartedAt(now).withFinishedAt(now).endTerminated().build();
                    boolean restarts = restartPolicy.equals("Always")
                            || (restartPolicy.equals("OnFailure") && exited.exitCode() != 0);
                    if (restarts) {
                        anyRunning = true;
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
        String phase = anyRunning ? "Running" : allSucceeded ? "Succeeded" : "Failed";
        String ready = statuses.stream().allMatch(ContainerStatus::getReady) ? "True" : "False";
        String podIp = "10.244.0." + (1 + podIps.getAndIncrement() % 250);
        client.pods().inNamespace(namespace).withName(name).editStatus(p -> {
            PodStatus status = status(p);
            status.setPhase(phase);
            status.setHostIP("127.0.0.1");
            status.setPodIP(podIp);
            status.setStartTime(now);
            status.setConditions(List.of(
                    condition("PodScheduled", "True", null, null),
                    condition("Initialized", "True", null, null),
                    condition("ContainersReady", ready, null, null),
                    condition("Ready", ready, null, null)));
            status.setContainerStatuses(statuses);
            return p;
        });
        LOG.log(System.Logger.Level.INFO, "pod {0}/{1} is {2} with devices {3}", namespace, name, phase,
                allocation.containers().stream().map(PodAllocation.ContainerAllocation::deviceIds).toList());
        if (FINISHED.contains(phase)) {
            kubelet.release(SimulatedKubelet.podKey(namespace, name));
        }
    }

    /** What the NVIDIA container toolkit reads from an Allocate response. */
    static GpuInjection injection(ContainerAllocateResponse response) {
        return new GpuInjection(response.getEnvsMap(),
                response.getMountsList().stream().map(Mount::getContainerPath).toList(),
                response.getAnnotationsMap(),
                response.getCdiDevicesList().stream().map(d -> d.getName()).toList());
    }

    private void forget(Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String key = SimulatedKubelet.podKey(namespace, name);
        handledByUid.remove(pod.getMetadata().getUid());
        unschedulable.remove(key);
        logs.remove(namespace, name);
        kubelet.release(key);
    }

    private void event(Pod pod, String type, String reason, String message) {
        String now = Instant.now().toString();
        try {
            client.v1().events().inNamespace(pod.getMetadata().getNamespace()).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(pod.getMetadata().getName() + ".").endMetadata()
                    .withNewInvolvedObject().withKind("Pod").withApiVersion("v1")
                    .withNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .withUid(pod.getMetadata().getUid()).endInvolvedObject()
                    .withType(type).withReason(reason).withMessage(message).withCount(1)
                    .withFirstTimestamp(now).withLastTimestamp(now)
                    .withNewSource().withComponent(type.equals("Warning") && reason.equals("FailedScheduling")
                            || reason.equals("Scheduled") ? "default-scheduler" : "kubelet").endSource()
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not record event {0} of {1}: {2}", reason,
                    pod.getMetadata().getName(), e.getMessage());
        }
    }

    private static PodStatus status(Pod pod) {
        if (pod.getStatus() == null) {
            pod.setStatus(new PodStatus());
        }
        return pod.getStatus();
    }

    private static PodCondition condition(String type, String status, String reason, String message) {
        return new PodConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withLastTransitionTime(Instant.now().toString()).build();
    }
}
