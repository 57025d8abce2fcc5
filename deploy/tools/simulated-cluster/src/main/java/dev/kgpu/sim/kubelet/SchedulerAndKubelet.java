package dev.kgpu.sim.kubelet;

import dev.kgpu.sim.dra.DraDrivers;
import dev.kgpu.sim.dra.DraKubeletManager;
import dev.kgpu.sim.dra.DynamicResources;
import dev.kgpu.sim.dra.ResourceClaimController;
import dev.kgpu.sim.runtime.ContainerLogs;
import dev.kgpu.sim.runtime.ContainerRuntime.ContainerOutcome;
import dev.kgpu.sim.runtime.ContainerRuntime.ContainerStart;
import dev.kgpu.sim.runtime.ContainerRuntime;
import dev.kgpu.sim.runtime.DeviceInjection;
import dev.kgpu.sim.runtime.DeviceManager.Admission;
import dev.kgpu.sim.runtime.DeviceManager;
import dev.kgpu.sim.scheduler.ExtendedResources;
import dev.kgpu.sim.scheduler.Scheduler;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

import java.text.MessageFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * The scheduler and the kubelet of a one-node cluster, against a Kubernetes API server (a CRUD test server):
 * what runs a pod once it is created. The one fake of them, shared by the validator's tests (whose protocol is
 * running a sample pod through the API server, so it lives in the validator's test-jar) and the simulated node
 * (deploy/tools/simulator, built after the validator). Its parts are small classes of their own:
 *
 * <ul>
 *   <li>{@link Scheduler}: may a pending pod go to the node ({@link Scheduler#standard()}: node selector and
 *       affinity, extended resources against the Node's allocatable less the pods bound to it and those whose
 *       devices the kubelet still holds)? If not, the pod
 *       stays {@code Pending} with {@code PodScheduled=False}, reason {@code Unschedulable}, the scheduler's
 *       message ({@code 0/1 nodes are available: 1 Insufficient nvidia.com/gpu.}) and a {@code FailedScheduling}
 *       event; it is tried again whenever a pod on the node ends or is deleted, or the Node changes. Else it is
 *       bound ({@code spec.nodeName}, a {@code Scheduled} event).</li>
 *   <li>{@link DeviceManager}: the kubelet admits a pod bound to the node and gives each container its
 *       devices, or rejects it: the pod ends {@code Failed} with the kubelet's reason and message.</li>
 *   <li>{@link ContainerRuntime}: creates the pod's sandbox (a failure: a {@code FailedCreatePodSandBox} event,
 *       containers {@code ContainerCreating}, the pod {@code Pending}) and starts each container; its log goes to
 *       {@link ContainerLogs}. A pod with a container that never started is {@code Pending}; one whose
 *       containers all ended is {@code Succeeded}/{@code Failed} under {@code restartPolicy: Never} (and
 *       {@code OnFailure} when they succeeded); otherwise it is {@code Running}, an ended container in
 *       {@code CrashLoopBackOff}.</li>
 *   <li>A pod's devices are freed when it ends (before its final status is written, so whoever sees the
 *       status sees them free) or is deleted; its logs go when it is deleted.</li>
 * </ul>
 *
 * <p>Pods and the Node are watched; events are handled one at a time, in order, on the
 * {@code scheduler-and-kubelet} thread, which is the only one that calls the parts. Only pods that
 * {@link Builder#runs} selects are scheduled and run; every pod bound to the node counts against its
 * resources. {@link #awaitSettled} waits until every event so far has been handled, the condition a test
 * waits on before it looks.
 */
public final class SchedulerAndKubelet implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SchedulerAndKubelet.class.getName());
    private static final Set<String> FINISHED = Set.of("Succeeded", "Failed");

    private sealed interface Event {
        record PodChanged(Pod pod) implements Event {
        }

        record PodDeleted(Pod pod) implements Event {
        }

        record NodeChanged(Node node, boolean deleted) implements Event {
        }

        /** A ResourceClaim, ResourceSlice or DeviceClass changed (key: kind, namespace and name). */
        record ResourceChanged(String key, String resourceVersion, boolean deleted) implements Event {
        }

        record Stop() implements Event {
        }
    }

    private final KubernetesClient client;
    private final String nodeName;
    private final Scheduler scheduler;
    private final DeviceManager devices;
    private final ContainerRuntime runtime;
    private final ContainerLogs logs;
    private final Predicate<Pod> runs;
    /** With DRA: the resourceclaim controller; else null. */
    private final ResourceClaimController claims;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    // written by the worker, read by awaitSettled: the resourceVersion of each pod and of the Node last handled
    private final Map<String, String> handledPods = new ConcurrentHashMap<>();
    private final AtomicReference<String> handledNode = new AtomicReference<>();
    private final Map<String, String> handledResources = new ConcurrentHashMap<>();
    private final List<String> seenPods = new CopyOnWriteArrayList<>();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final Object settled = new Object();
    // owned by the worker: pods (by uid) it has started or rejected, and those whose devices it holds
    private final Set<String> started = new HashSet<>();
    private final Map<String, Pod> holding = new LinkedHashMap<>();
    private final Map<String, String> unschedulable = new LinkedHashMap<>();
    /** Pods (by key) the kubelet could not start yet, and why ({@link Admission.Waiting}). */
    private final Map<String, String> waiting = new LinkedHashMap<>();
    private final List<Watch> watches = new ArrayList<>();
    private final AtomicInteger podIps = new AtomicInteger();
    private Thread worker;

    private SchedulerAndKubelet(Builder builder) {
        this.client = builder.client;
        this.nodeName = builder.nodeName;
        if (builder.draDrivers == null) {
            this.scheduler = builder.scheduler;
            this.devices = builder.devices;
            this.claims = null;
        } else {
            this.scheduler = builder.scheduler.and(new DynamicResources(builder.client));
            this.devices = builder.devices.and(new DraKubeletManager(builder.client, builder.draDrivers));
            this.claims = new ResourceClaimController(builder.client);
        }
        this.runtime = Objects.requireNonNull(builder.runtime, "a container runtime");
        this.logs = Objects.requireNonNull(builder.logs, "where container logs go");
        this.runs = builder.runs;
    }

    /** The scheduler and kubelet of node {@code nodeName}, talking to the API server through {@code client}. */
    public static Builder forNode(KubernetesClient client, String nodeName) {
        return new Builder(client, nodeName);
    }

    /** Its parts; the scheduler, the device manager and the pods it runs have defaults. */
    public static final class Builder {
        private final KubernetesClient client;
        private final String nodeName;
        private Scheduler scheduler = Scheduler.standard();
        private DeviceManager devices = DeviceManager.none();
        private ContainerRuntime runtime;
        private ContainerLogs logs;
        private Predicate<Pod> runs = pod -> true;
        private DraDrivers draDrivers;

        private Builder(KubernetesClient client, String nodeName) {
            this.client = client;
            this.nodeName = nodeName;
        }

        /** Default {@link Scheduler#standard()}. */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        /** Default {@link DeviceManager#none()}. */
        public Builder deviceManager(DeviceManager devices) {
            this.devices = devices;
            return this;
        }

        public Builder runtime(ContainerRuntime runtime) {
            this.runtime = runtime;
            return this;
        }

        public Builder logs(ContainerLogs logs) {
            this.logs = logs;
            return this;
        }

        /** Which pods it schedules and runs (default: all); the others keep the status someone else gives them. */
        public Builder runs(Predicate<Pod> runs) {
            this.runs = runs;
            return this;
        }

        /**
         * Dynamic resource allocation ({@code resource.k8s.io/v1}) with these drivers: the scheduler also allocates
         * and reserves pods' ResourceClaims ({@link DynamicResources}, after the other filters), the resourceclaim
         * controller makes claims from templates and deallocates them ({@link ResourceClaimController}), and the
         * kubelet prepares them through the drivers before a pod's containers start ({@link DraKubeletManager}, after
         * the device manager). ResourceClaims, ResourceSlices and DeviceClasses are watched too: a change tries the
         * pods that wait again. Off by default.
         */
        public Builder dynamicResources(DraDrivers drivers) {
            this.draDrivers = drivers;
            return this;
        }

        /** Starts watching; pods that exist already are handled first. */
        public SchedulerAndKubelet start() {
            SchedulerAndKubelet cluster = new SchedulerAndKubelet(this);
            cluster.worker = Thread.ofPlatform().name("scheduler-and-kubelet").daemon().start(cluster::work);
            cluster.watches.add(client.nodes().withName(nodeName).watch(cluster.new Events<>(
                    (action, node) -> new Event.NodeChanged(node, action == Watcher.Action.DELETED))));
            cluster.watches.add(client.pods().inAnyNamespace().watch(cluster.new Events<>(
                    (action, pod) -> action == Watcher.Action.DELETED ? new Event.PodDeleted(pod) : new Event.PodChanged(pod))));
            if (draDrivers != null) {
                var dra = client.dynamicResourceAllocation().v1();
                cluster.watches.add(dra.resourceClaims().inAnyNamespace().watch(cluster.new Events<>(SchedulerAndKubelet::resourceChanged)));
                cluster.watches.add(dra.resourcesSlices().watch(cluster.new Events<>(SchedulerAndKubelet::resourceChanged)));
                cluster.watches.add(dra.deviceClasses().watch(cluster.new Events<>(SchedulerAndKubelet::resourceChanged)));
            }
            return cluster;
        }
    }

    private static Event resourceChanged(Watcher.Action action, HasMetadata object) {
        return new Event.ResourceChanged(resourceKey(object), object.getMetadata().getResourceVersion(),
                action == Watcher.Action.DELETED);
    }

    private static String resourceKey(HasMetadata object) {
        return object.getKind() + "/" + object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
    }

    private final class Events<T> implements Watcher<T> {
        private final BiFunction<Action, T, Event> event;

        Events(BiFunction<Action, T, Event> event) {
            this.event = event;
        }

        @Override
        public void eventReceived(Action action, T object) {
            if (action != Action.ERROR && action != Action.BOOKMARK) {
                events.add(event.apply(action, object));
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            LOG.log(System.Logger.Level.WARNING, "a watch closed: {0}", cause.getMessage());
        }
    }

    /** Names of the pods it has run or tried to schedule, in order. */
    public List<String> seenPods() {
        return List.copyOf(seenPods);
    }

    /**
     * Waits until every pod and the Node (with DRA: every ResourceClaim, ResourceSlice and DeviceClass) have been
     * handled at their current resourceVersion, and every deletion too: what the scheduler and the kubelet would do
     * about the cluster as it is now is done.
     *
     * @throws AssertionError after {@code timeout}, or when handling an event failed
     */
    public void awaitSettled(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (settled) {
            while (true) {
                if (failure.get() != null) {
                    throw new AssertionError("the simulated scheduler/kubelet failed", failure.get());
                }
                List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
                // every pod handled at its resourceVersion, and every deletion too (no pod handled that is gone)
                boolean podsDone = pods.stream().allMatch(p -> p.getMetadata().getResourceVersion().equals(handledPods.get(key(p))))
                        && pods.stream().map(SchedulerAndKubelet::key).collect(java.util.stream.Collectors.toSet())
                                .containsAll(handledPods.keySet());
                Node node = node();
                if (podsDone && (node == null || node.getMetadata().getResourceVersion().equals(handledNode.get()))
                        && resourcesDone()) {
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

    /** With DRA: whether every claim, slice and class has been handled at its current resourceVersion. */
    private boolean resourcesDone() {
        if (claims == null) {
            return true;
        }
        var dra = client.dynamicResourceAllocation().v1();
        List<HasMetadata> objects = new ArrayList<>(dra.resourceClaims().inAnyNamespace().list().getItems());
        objects.addAll(dra.resourcesSlices().list().getItems());
        objects.addAll(dra.deviceClasses().list().getItems());
        return objects.stream().allMatch(o -> o.getMetadata().getResourceVersion().equals(handledResources.get(resourceKey(o))))
                && objects.stream().map(SchedulerAndKubelet::resourceKey).collect(java.util.stream.Collectors.toSet())
                        .containsAll(handledResources.keySet());
    }

    @Override
    public void close() {
        watches.forEach(Watch::close);
        events.add(new Event.Stop());
        if (worker != null) {
            try {
                worker.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // the worker

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
                    case Event.PodChanged changed -> {
                        reconcile(changed.pod());
                        handledPods.put(key(changed.pod()), changed.pod().getMetadata().getResourceVersion());
                        if (FINISHED.contains(phase(changed.pod()))) {
                            if (claims != null) {
                                claims.podDone(changed.pod(), false);
                            }
                            if (onNode(changed.pod())) {
                                retryUnschedulable();
                            }
                        }
                    }
                    case Event.PodDeleted deleted -> {
                        forget(deleted.pod());
                        if (claims != null) {
                            claims.podDone(deleted.pod(), true);
                        }
                        handledPods.remove(key(deleted.pod()));
                        retryUnschedulable();
                    }
                    case Event.ResourceChanged changed -> {
                        if (changed.deleted()) {
                            handledResources.remove(changed.key());
                        } else {
                            handledResources.put(changed.key(), changed.resourceVersion());
                        }
                        retryUnschedulable();
                    }
                    case Event.NodeChanged changed -> {
                        handledNode.set(changed.deleted() ? null : changed.node().getMetadata().getResourceVersion());
                        retryUnschedulable();
                    }
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, MessageFormat.format("handling {0} failed", event), e);
                failure.compareAndSet(null, e);
            }
            synchronized (settled) {
                settled.notifyAll();
            }
        }
    }

    private void reconcile(Pod pod) {
        String boundTo = pod.getSpec().getNodeName();
        boolean bound = boundTo != null && !boundTo.isBlank();
        if (bound && !boundTo.equals(nodeName)) {
            return;
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            forget(pod);
            return;
        }
        if (!runs.test(pod) || started.contains(pod.getMetadata().getUid()) || FINISHED.contains(phase(pod))) {
            return;
        }
        if (!seenPods.contains(pod.getMetadata().getName())) {
            seenPods.add(pod.getMetadata().getName());
        }
        if (claims != null) {
            try {
                pod = claims.ensureClaims(pod);
            } catch (KubernetesClientException e) {
                LOG.log(System.Logger.Level.INFO, "pod {0}: its claims could not be made: {1}", key(pod), e.getMessage());
                return;
            }
        }
        PodStatusWriter status = new PodStatusWriter(client, pod);
        try {
            ExtendedResources.byContainer(pod);
        } catch (IllegalArgumentException e) {
            kubeletRejects(pod, bound, status, new Admission.Rejected("UnexpectedAdmissionError", e.getMessage()));
            return;
        }
        if (!bound) {
            Optional<String> unfit = schedule(pod);
            if (unfit.isPresent()) {
                markUnschedulable(pod, status, unfit.get());
                return;
            }
        }
        unschedulable.remove(key(pod));
        started.add(pod.getMetadata().getUid());
        try {
            if (!bound) {
                try {
                    status.bind(nodeName);
                } catch (KubernetesClientException e) {
                    scheduler.unreserve(pod);
                    throw e;
                }
            }
            switch (devices.admit(pod)) {
                case Admission.Rejected rejected -> kubeletRejects(pod, true, status, rejected);
                case Admission.Waiting notYet -> kubeletWaits(pod, status, notYet);
                case Admission.Admitted admitted -> {
                    waiting.remove(key(pod));
                    holding.put(pod.getMetadata().getUid(), pod);
                    run(pod, status, admitted);
                }
            }
        } catch (KubernetesClientException e) {
            LOG.log(System.Logger.Level.INFO, "pod {0} went away while it started: {1}", key(pod), e.getMessage());
            forget(pod);
        }
    }

    /**
     * The kubelet cannot start the pod yet: {@code Pending}, containers in {@code ContainerCreating}, a Warning event
     * (each once per message); tried again when something changes.
     */
    private void kubeletWaits(Pod pod, PodStatusWriter status, Admission.Waiting notYet) {
        started.remove(pod.getMetadata().getUid());
        boolean told = notYet.message().equals(waiting.put(key(pod), notYet.message()));
        if (told) {
            return;
        }
        LOG.log(System.Logger.Level.INFO, "pod {0} waits: {1}: {2}", key(pod), notYet.reason(), notYet.message());
        try {
            status.event("Warning", notYet.reason(), notYet.message());
            status.containersCreating();
        } catch (KubernetesClientException e) {
            LOG.log(System.Logger.Level.DEBUG, "pod {0} went away: {1}", key(pod), e.getMessage());
            waiting.remove(key(pod));
        }
    }

    /**
     * Empty when the node takes the pod, else the scheduler's message. The pods on the node are those the API
     * server has bound to it and that have not ended, and those whose devices the kubelet still holds: the CRUD
     * server deletes a pod at once, where a real one keeps it (terminating) until its kubelet has let it go, so
     * a pod deleted but not yet released here still counts, and the scheduler never binds a pod the device
     * manager would then have to reject. When every filter lets the pod through, the scheduler's Reserve runs.
     */
    private Optional<String> schedule(Pod pod) {
        Node node = node();
        if (node == null) {
            return Optional.of("no nodes available to schedule pods");
        }
        Map<String, Pod> podsOnNode = new LinkedHashMap<>();
        client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> nodeName.equals(p.getSpec().getNodeName()) && !FINISHED.contains(phase(p)))
                .forEach(p -> podsOnNode.put(p.getMetadata().getUid(), p));
        holding.forEach(podsOnNode::putIfAbsent);
        podsOnNode.remove(pod.getMetadata().getUid());
        return scheduler.filter(pod, node, List.copyOf(podsOnNode.values())).or(() -> scheduler.reserve(pod, node))
                .map(reason -> "0/1 nodes are available: 1 " + reason + ".");
    }

    private void markUnschedulable(Pod pod, PodStatusWriter status, String message) {
        boolean told = message.equals(unschedulable.put(key(pod), message));
        if (status.isUnschedulable(message)) {
            return;
        }
        try {
            if (!told) {
                status.event("Warning", "FailedScheduling", message);
                LOG.log(System.Logger.Level.INFO, "pod {0} is unschedulable: {1}", key(pod), message);
            }
            status.unschedulable(message);
        } catch (KubernetesClientException e) {
            LOG.log(System.Logger.Level.DEBUG, "pod {0} went away: {1}", key(pod), e.getMessage());
            unschedulable.remove(key(pod));
        }
    }

    private void kubeletRejects(Pod pod, boolean bound, PodStatusWriter status, Admission.Rejected rejected) {
        unschedulable.remove(key(pod));
        started.add(pod.getMetadata().getUid());
        LOG.log(System.Logger.Level.INFO, "pod {0} failed admission: {1}: {2}", key(pod), rejected.reason(),
                rejected.message());
        try {
            if (!bound) {
                status.bind(nodeName);
            }
            status.rejected(rejected.reason(), rejected.message());
        } catch (KubernetesClientException e) {
            LOG.log(System.Logger.Level.DEBUG, "pod {0} went away: {1}", key(pod), e.getMessage());
        }
    }

    private void run(Pod pod, PodStatusWriter status, Admission.Admitted admitted) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        Optional<String> sandboxError = runtime.createSandbox(pod);
        if (sandboxError.isPresent()) {
            status.event("Warning", "FailedCreatePodSandBox", "Failed to create pod sandbox: " + sandboxError.get());
            status.containersCreating();
            return;
        }
        Map<String, ContainerOutcome> outcomes = new LinkedHashMap<>();
        for (Container container : pod.getSpec().getContainers()) {
            ContainerOutcome outcome = runtime.start(new ContainerStart(namespace, name, container.getName(),
                    container.getImage(), env(container),
                    admitted.containers().getOrDefault(container.getName(), DeviceInjection.none())));
            switch (outcome) {
                case ContainerOutcome.Exited exited -> logs.put(namespace, name, container.getName(), exited.log());
                case ContainerOutcome.Running running -> logs.put(namespace, name, container.getName(), running.log());
                case ContainerOutcome.Waiting waiting -> {
                }
            }
            outcomes.put(container.getName(), outcome);
        }
        List<ContainerStatus> statuses = PodStatusWriter.containerStatuses(pod, outcomes);
        String phase = PodStatusWriter.phase(pod, outcomes);
        if (FINISHED.contains(phase)) {
            release(pod);
        }
        status.started(phase, statuses, "10.244.0." + (2 + podIps.getAndIncrement() % 250));
        LOG.log(System.Logger.Level.INFO, "pod {0} is {1}", key(pod), phase);
    }

    private static Map<String, String> env(Container container) {
        Map<String, String> env = new LinkedHashMap<>();
        if (container.getEnv() != null) {
            for (EnvVar variable : container.getEnv()) {
                if (variable.getValue() != null) {
                    env.put(variable.getName(), variable.getValue());
                }
            }
        }
        return env;
    }

    private void forget(Pod pod) {
        started.remove(pod.getMetadata().getUid());
        unschedulable.remove(key(pod));
        waiting.remove(key(pod));
        logs.remove(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        release(pod);
    }

    private void release(Pod pod) {
        runtime.stopPod(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        holding.remove(pod.getMetadata().getUid());
        devices.release(pod);
    }

    /** Tries again the pods the scheduler could not place and those the kubelet could not start yet. */
    private void retryUnschedulable() {
        Set<String> keys = new java.util.LinkedHashSet<>(unschedulable.keySet());
        keys.addAll(waiting.keySet());
        for (String key : keys) {
            String[] parts = key.split("/", 2);
            Pod pod = client.pods().inNamespace(parts[0]).withName(parts[1]).get();
            if (pod == null) {
                unschedulable.remove(key);
                waiting.remove(key);
            } else {
                reconcile(pod);
            }
        }
    }

    /**
     * The Node, read through a list: a test's faults on reading the Node by name (which the validator does) are
     * then the validator's alone.
     */
    private Node node() {
        return client.nodes().list().getItems().stream().filter(n -> nodeName.equals(n.getMetadata().getName()))
                .findFirst().orElse(null);
    }

    private boolean onNode(Pod pod) {
        return nodeName.equals(pod.getSpec().getNodeName());
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "" : pod.getStatus().getPhase();
    }

    private static String key(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }
}
