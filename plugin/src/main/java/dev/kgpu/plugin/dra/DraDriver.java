package dev.kgpu.plugin.dra;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.health.HealthListener;
import dev.kgpu.plugin.health.HealthTracker;
import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.DeviceUnit;
import dev.kgpu.plugin.node.FrontEnd;
import dev.kgpu.plugin.node.NodeContext;
import dev.kgpu.plugin.node.NodeStatus;
import dev.kgpu.plugin.node.Retry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * kgpu as a DRA driver for {@value DraNames#DRIVER}, beside the device plugin or alone: a {@link FrontEnd} of the
 * node runtime (so it shares its NVML session, inventory, health watch, retries and SIGHUP):
 *
 * <ul>
 *   <li>each plan the node serves hands it the inventory: it offers the devices {@link NodeDevices} reads from it,
 *       whose health the node then watches too;</li>
 *   <li>the first start opens the checkpoint of prepared claims, starts the {@link SlicePublisher} and serves the DRA
 *       and registration sockets ({@link DraKubelet}); a later start only serves them again if they are gone;</li>
 *   <li>the pool published holds the Healthy devices no device plugin holds: an XID takes a device out of the node's
 *       ResourceSlice, its recovery puts it back; a GPU the kubelet's device manager allocated (the node's
 *       {@link AllocationLedger}, which the kubelet's PodResources API feeds every {@link #POD_RESOURCES_PERIOD}, or the
 *       kubelet's device-manager checkpoint ({@link KubeletDeviceCheckpoint}) while PodResources cannot be reached)
 *       leaves it while held (kgpu removes rather than taints: device taints are beta from Kubernetes 1.36 only, and without
 *       them the API server drops taints and the scheduler would keep picking the device);</li>
 *   <li>the MPS control daemon of each claim that asks for {@code MPS} ({@link MpsSharing}) is checked every
 *       {@link DraSettings#mpsCheckInterval} off the node's thread, started again when it stopped, and named in the
 *       status (not ready) while it does not run;</li>
 *   <li>a registration the kubelet refused is logged with its reason, shown in the status, and tried again with
 *       backoff by serving the registration socket anew;</li>
 *   <li>devices that cannot be read any more empty the pool (nothing new is scheduled here) while prepared claims
 *       stay; SIGTERM stops the servers and removes their sockets but leaves the slices, as NVIDIA's driver does
 *       (the kubelet deletes them 30 s after the driver unregistered unless it registers again).</li>
 * </ul>
 *
 * <p>Thread-safety: the {@link FrontEnd} calls and retries come on the node's thread; health changes from the thread
 * that changed health; registration verdicts and claims from gRPC threads (a verdict's retry is handed to the node's
 * thread). {@link #status()} may be called from any thread.
 */
public final class DraDriver implements FrontEnd<DraSettings>, HealthListener, AllocationLedger.Listener {

    /** How often the kubelet's PodResources API (or its checkpoint) is asked what the device manager allocated. */
    static final Duration POD_RESOURCES_PERIOD = Duration.ofSeconds(1);

    /** This front-end's name in logs and health checks. */
    public static final String NAME = "DRA driver";
    private static final System.Logger LOG = System.getLogger(DraDriver.class.getName());

    private final DraSettings settings;
    private final Function<String, Optional<String>> mpsHolder;
    private final DraKubelet kubelet;
    private final KubeletDeviceCheckpoint deviceManagerCheckpoint;
    private final ClaimSource claims;
    private final ResourceSliceStore slices;
    private final DraMetrics metrics;
    private final Backoff.Policy retries;

    private volatile NodeDevices devices = NodeDevices.NONE;
    private volatile boolean registered;
    private volatile String registrationProblem;
    private volatile String serveProblem;
    private volatile boolean stopped;
    private volatile boolean bootIdKnown = true;

    // confined to the node's thread (set once in start)
    private NodeContext node;
    private HealthTracker health;
    private Retry serveRetry;
    private Retry registerRetry;
    private volatile ClaimPreparer preparer;
    private volatile MpsSharing mps;
    private Supervisor.Timer mpsCheck;
    private volatile SlicePublisher publisher;
    private volatile DraKubelet.Endpoint endpoint;
    private volatile Thread podResourcesPoller;
    /** Where the ledger learnt the kubelet's allocations last, and why not from PodResources (null when it did). */
    private volatile AllocationFeed feed = new AllocationFeed(DraStatus.AllocationSource.NONE,
            "what the kubelet's device manager allocated has not been read yet");

    /**
     * @param kubelet serves the DRA and registration sockets
     * @param claims  reads the claims' allocations from the API server
     * @param slices  the node's ResourceSlices in the API server
     * @param mpsHolder the MPS-shared resource whose control daemon holds a GPU (by UUID) now, empty when none does: a
     *                time-sliced claim is refused such a GPU ({@link TimeSlicing})
     * @param retries the waits between retries of publishing (serving and registering are retried with the node's)
     */
    public DraDriver(DraSettings settings, DraKubelet kubelet, ClaimSource claims, ResourceSliceStore slices,
                     Function<String, Optional<String>> mpsHolder, DraMetrics metrics, Backoff.Policy retries) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.mpsHolder = Objects.requireNonNull(mpsHolder, "mpsHolder");
        this.kubelet = Objects.requireNonNull(kubelet, "kubelet");
        this.deviceManagerCheckpoint = new KubeletDeviceCheckpoint(settings.deviceManagerCheckpoint());
        this.claims = Objects.requireNonNull(claims, "claims");
        this.slices = Objects.requireNonNull(slices, "slices");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.retries = Objects.requireNonNull(retries, "retries");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void start(NodeContext context) {
        this.node = Objects.requireNonNull(context, "context");
        this.health = context.health();
        this.serveRetry = context.retry(this::serve);
        this.registerRetry = context.retry(this::registerAgain);
        health.addListener(this);
        context.ledger().addListener(this);
    }

    /**
     * The devices {@link NodeDevices} reads from {@code inventory}. {@code reloaded} is not read: the driver keeps the
     * settings it started with (its folders and node name come from flags and variables, which a reload does not change).
     */
    @Override
    public FrontEnd.Plan plan(NodeInventory inventory, DraSettings reloaded) {
        NodeDevices planned = NodeDevices.of(inventory);
        return new FrontEnd.Plan() {
            @Override
            public Collection<? extends PhysicalDevice> devices() {
                return planned.physicalDevices();
            }

            @Override
            public void serve() {
                serving(planned);
            }
        };
    }

    private void serving(NodeDevices next) {
        if (!next.equals(devices)) {
            LOG.log(System.Logger.Level.INFO, "DRA driver {0} on node {1} offers {2}", DraNames.DRIVER, settings.nodeName(), next);
        }
        devices = next;
        if (preparer == null) {
            open();
        } else if (endpoint == null || !endpoint.serving()) {
            serve();
        }
        publishSlices();
    }

    @Override
    public void stopServing(NodeStatus.Problem why) {
        if (why instanceof NodeStatus.Problem.Stopped) {
            shutdown();
            return;
        }
        devices = NodeDevices.unreadable(why.message());
        publishSlices();
    }

    /** Who holds which GPU changed: a GPU the device plugin handed out leaves the slice, and returns when it is free. */
    @Override
    public void ledgerChanged(AllocationLedger.View view) {
        publishSlices();
    }

    /** Health changed: publish the Healthy devices (never blocks: the publisher's thread syncs). */
    @Override
    public void onHealthChanged(List<HealthTransition> transitions) {
        publishSlices();
    }

    /** What the driver has achieved so far. */
    @Override
    public DraStatus status() {
        SlicePublisher slicePublisher = publisher;
        ClaimPreparer claimPreparer = preparer;
        DraKubelet.Endpoint served = endpoint;
        if (claimPreparer == null || slicePublisher == null) {
            return stopped ? new DraStatus(false, false, false, Optional.empty(), 0, 0, bootIdKnown,
                    DraStatus.AllocationSource.NONE, false, List.of(), List.of("stopped")) : DraStatus.STARTING;
        }
        boolean serving = served != null && served.serving();
        SlicePublisher.Status slicesStatus = slicePublisher.status();
        List<String> problems = new ArrayList<>();
        devices.unreadable().ifPresent(problems::add);
        if (serveProblem != null) {
            problems.add(serveProblem);
        }
        if (registrationProblem != null) {
            problems.add(registrationProblem);
        } else if (!registered && serving) {
            problems.add("waiting for the kubelet to register " + DraNames.DRIVER + " (" + settings.registrationSocket() + ")");
        }
        slicesStatus.failure().ifPresent(f -> problems.add("ResourceSlices not published: " + f));
        AllocationFeed read = feed;
        if (read.problem() != null) {
            problems.add(read.problem());
        }
        MpsSharing sharing = mps;
        List<String> mpsProblems = sharing == null ? List.of() : sharing.problems();
        return new DraStatus(serving, registered, slicesStatus.current(),
                slicesStatus.published().map(ResourceSliceStore.Published::generation), devices.devices().size(),
                claimPreparer.prepared().size(), bootIdKnown, read.source(), settings.devicePluginBeside(), mpsProblems,
                problems);
    }

    /** The claims prepared now (for tests and the status). */
    public Collection<PreparedClaim> preparedClaims() {
        ClaimPreparer claimPreparer = preparer;
        return claimPreparer == null ? List.of() : claimPreparer.prepared();
    }

    // ---------------------------------------------------------------------------------------------
    // the node's thread

    /** The first plan served: the checkpoint opened, the slices published from now on, the sockets served. */
    private void open() {
        ClaimCheckpoint checkpoint = ClaimCheckpoint.open(settings.checkpointFile(), bootId());
        checkpoint.recovery().ifPresent(r -> LOG.log(System.Logger.Level.WARNING, r));
        LOG.log(System.Logger.Level.INFO, "DRA driver {0}: {1} claims prepared before ({2}); claim CDI specs in {3}",
                DraNames.DRIVER, checkpoint.claims().size(), checkpoint.file(), settings.cdiRoot());
        restore(checkpoint.claims());
        // a claim daemon's restart runs the control program: off the node's thread (it takes the MPS lock)
        mps = MpsSharing.of(settings, node::computeModes,
                (delay, task) -> node.after(delay, () -> Thread.ofVirtual().name("dra-mps-restart").start(task)),
                retries, metrics);
        preparer = new ClaimPreparer(settings.nodeName(), claims, checkpoint, new ClaimSpecs(settings.cdiRoot(), settings.cdi()),
                () -> devices, uuid -> health.problem(uuid), node.ledger(),
                new TimeSlicing(node::computeModes, mpsHolder), mps, node::now, metrics);
        preparer.resumeMps();
        scheduleMpsCheck();
        publisher = new SlicePublisher(slices, DraNames.DRIVER, settings.nodeName(), settings.resyncPeriod(), retries, metrics);
        podResourcesPoller = Thread.ofPlatform().name("dra-pod-resources").daemon(true).start(this::pollKubeletAllocations);
        serve();
    }

    /** Every {@link DraSettings#mpsCheckInterval}, each MPS claim's daemon is checked, off the node's thread. */
    private void scheduleMpsCheck() {
        if (stopped) {
            return;
        }
        mpsCheck = node.after(settings.mpsCheckInterval(), () -> Thread.ofVirtual().name("dra-mps-check").start(() -> {
            try {
                mps.check();
            } finally {
                node.run(this::scheduleMpsCheck);
            }
        }));
    }

    /** The claims prepared before this start hold their devices in the node's ledger from now on. */
    private void restore(Collection<PreparedClaim> prepared) {
        Instant now = node.now();
        for (PreparedClaim claim : prepared) {
            node.ledger().restoreClaim(claim.claim(), claim.devices().stream()
                    .map(d -> new AllocationLedger.ClaimDevice(d.device(), devices.device(d.device())
                            .filter(offered -> offered.uuid().equals(d.uuid()))
                            .map(offered -> DeviceUnit.of(offered.device()))
                            .orElse(new DeviceUnit(d.uuid(), Optional.empty())), false))
                    .toList(), now);
        }
    }

    private void serve() {
        if (stopped) {
            return;
        }
        if (endpoint != null) {
            endpoint.stop();
            endpoint = null;
        }
        registered = false;
        try {
            endpoint = kubelet.serve(preparer, this::registrationStatus);
            serveProblem = null;
            serveRetry.reset();
            LOG.log(System.Logger.Level.INFO, "serving DRA driver {0} on {1}, registration on {2}", DraNames.DRIVER,
                    settings.serviceSocket(), settings.registrationSocket());
        } catch (IOException e) {
            serveProblem = "could not serve the DRA driver: " + e.getMessage();
            Duration wait = serveRetry.schedule();
            LOG.log(System.Logger.Level.ERROR, "{0}; trying again in {1}", serveProblem, wait);
        }
    }

    /** After a refusal: the registration socket served anew, so the kubelet's watcher registers again. */
    private void registerAgain() {
        if (stopped || endpoint == null || registered) {
            return;
        }
        LOG.log(System.Logger.Level.INFO, "serving the registration socket {0} again, for the kubelet to register {1}",
                settings.registrationSocket(), DraNames.DRIVER);
        try {
            endpoint.register();
        } catch (IOException e) {
            serveProblem = "could not serve the registration socket again: " + e.getMessage();
            LOG.log(System.Logger.Level.ERROR, serveProblem);
            serve();
        }
    }

    /**
     * Reads every {@link #POD_RESOURCES_PERIOD} what the kubelet's device manager allocated ({@link #readKubeletAllocations})
     * and tells the ledger, which ends the device plugin's holds the kubelet no longer lists.
     */
    private void pollKubeletAllocations() {
        while (!stopped) {
            readKubeletAllocations();
            try {
                Thread.sleep(POD_RESOURCES_PERIOD);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * One read, on the poller's thread: the PodResources API; when it cannot be reached, the kubelet's device-manager
     * checkpoint, which over-reserves (it keeps pods that ended until the kubelet writes it again); when neither can be
     * read, nothing: every hold stays (never freed on missing data). Which source fed the ledger is said in one line
     * when it changes (and, with none, when the cause changes), and shown in the status.
     */
    private void readKubeletAllocations() {
        Instant now = node.now();
        String podResourcesFailure;
        try {
            node.ledger().observe(kubelet.deviceAllocations(now));
            fed(new AllocationFeed(DraStatus.AllocationSource.POD_RESOURCES, null));
            return;
        } catch (IOException | RuntimeException e) {
            podResourcesFailure = String.valueOf(e.getMessage());
        }
        try {
            node.ledger().observe(deviceManagerCheckpoint.read(now));
            fed(new AllocationFeed(DraStatus.AllocationSource.DEVICE_MANAGER_CHECKPOINT, "the kubelet's PodResources API"
                    + " cannot be read (" + podResourcesFailure + "): reading what its device manager allocated from its"
                    + " checkpoint " + deviceManagerCheckpoint.file() + ", which keeps pods that ended until the kubelet"
                    + " writes it again (their GPUs stay withdrawn from DRA until then)"));
        } catch (IOException | RuntimeException e) {
            fed(new AllocationFeed(DraStatus.AllocationSource.NONE, "cannot read what the kubelet's device manager"
                    + " allocated: " + podResourcesFailure + "; " + e.getMessage() + "; GPUs the device plugin hands out"
                    + " cannot be withdrawn from DRA until one of them can be read"));
        }
    }

    private void fed(AllocationFeed next) {
        AllocationFeed before = feed;
        feed = next;
        if (before.source() == next.source()
                && (next.source() != DraStatus.AllocationSource.NONE || Objects.equals(before.problem(), next.problem()))) {
            return;
        }
        switch (next.source()) {
            case POD_RESOURCES -> LOG.log(System.Logger.Level.INFO, "reading what the kubelet''s device manager allocated"
                    + " from its PodResources API ({0})", settings.podResourcesSocket());
            case DEVICE_MANAGER_CHECKPOINT, NONE -> LOG.log(System.Logger.Level.WARNING, next.problem());
        }
    }

    /** Where the ledger learnt the kubelet's allocations last; {@code problem} says why not from PodResources. */
    private record AllocationFeed(DraStatus.AllocationSource source, String problem) {
    }

    private void shutdown() {
        stopped = true;
        Thread poller = podResourcesPoller;
        if (poller != null) {
            poller.interrupt();
            try {
                poller.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (node != null) {
            node.ledger().removeListener(this);
        }
        serveRetry.cancel();
        registerRetry.cancel();
        if (mpsCheck != null) {
            mpsCheck.cancel();
        }
        if (health != null) {
            health.removeListener(this);
        }
        if (endpoint != null) {
            LOG.log(System.Logger.Level.INFO, "stopping the DRA driver: removing its sockets; its ResourceSlices stay for"
                    + " the kubelet to remove once it notices the driver is gone");
            endpoint.stop();
        }
        if (publisher != null) {
            publisher.close();
        }
        kubelet.close();
    }

    // ---------------------------------------------------------------------------------------------
    // any thread

    private void registrationStatus(boolean accepted, String error) {
        if (accepted) {
            registered = true;
            registrationProblem = null;
            node.run(registerRetry::reset);
            LOG.log(System.Logger.Level.INFO, "the kubelet registered DRA driver {0}", DraNames.DRIVER);
            SlicePublisher slicePublisher = publisher;
            if (slicePublisher != null) {
                // a starting kubelet deletes the node's slices around the time it registers the driver again
                slicePublisher.resync("the kubelet registered the driver");
            }
            return;
        }
        registered = false;
        String problem = "the kubelet refused DRA driver " + DraNames.DRIVER + ": " + error;
        registrationProblem = problem;
        node.run(() -> {
            Duration wait = registerRetry.schedule();
            LOG.log(System.Logger.Level.WARNING, "{0}; registering again in {1}", problem, wait);
        });
    }

    private void publishSlices() {
        SlicePublisher slicePublisher = publisher;
        if (slicePublisher == null || stopped) {
            return;
        }
        AllocationLedger.View held = node.ledger().view();
        List<DraDevice> offered = devices.devices().stream().filter(d -> health.isHealthy(d.uuid()))
                .filter(d -> !held.heldByDevicePlugin(DeviceUnit.of(d.device()))).toList();
        slicePublisher.publish(new ResourcePool(DraNames.DRIVER, settings.nodeName(), settings.nodeName(), offered));
    }

    /**
     * This boot's id, which tells the checkpoint of an earlier boot; empty when it cannot be read, said in one WARNING
     * line. NVIDIA's driver does not start then; kgpu runs on and keeps every checkpointed claim (a claim of an earlier
     * boot is then answered from the checkpoint until the kubelet unprepares it, which its reconciler does for claims
     * of pods that are gone).
     */
    private String bootId() {
        String why;
        try {
            String id = Files.readString(settings.bootIdFile()).strip();
            if (!id.isEmpty()) {
                bootIdKnown = true;
                return id;
            }
            why = "it is empty";
        } catch (NoSuchFileException e) {
            why = "no such file";
        } catch (IOException e) {
            why = e.getMessage();
        }
        bootIdKnown = false;
        LOG.log(System.Logger.Level.WARNING, "cannot read the boot id from {0} ({1}): claims checkpointed before a reboot"
                + " cannot be told apart and are kept", settings.bootIdFile(), why);
        return "";
    }
}
