package dev.kgpu.plugin.dra;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.plugin.dra.config.ClaimConfig;
import dev.kgpu.plugin.dra.config.DeviceSharing;
import dev.kgpu.plugin.dra.config.MpsConfig;
import dev.kgpu.plugin.dra.config.OpaqueConfigs;
import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.ClaimRef;
import dev.kgpu.plugin.node.DeviceUnit;

import java.text.MessageFormat;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What NodePrepareResources and NodeUnprepareResources do, free of gRPC: one call at a time (the kubelet may call
 * concurrently; preparing is quick), each claim on its own, failures per claim in one line.
 *
 * <p>Preparing a claim:
 * <ol>
 *   <li>a claim the checkpoint holds is answered from it, its spec written again only if it went missing: the
 *       kubelet repeats calls after restarts, and a claim is never prepared twice;</li>
 *   <li>otherwise its allocation is read from the API server (by namespace and name, checked against the UID);</li>
 *   <li>a claim with no device of this driver (no result at all, only other drivers', a result without a device) is
 *       refused: NVIDIA's driver prepares it with no device, but no CDI spec can be written for it;</li>
 *   <li>every device allocated from this driver must be in this node's pool, be one of its devices now and be
 *       Healthy; devices of other drivers are theirs;</li>
 *   <li>the claim's opaque configs ({@code GpuConfig}, {@code MigDeviceConfig}) are decoded and checked as NVIDIA's
 *       driver does, and refused when they ask for sharing kgpu cannot apply ({@link #sharingProblem});</li>
 *   <li>the devices are reserved in the node's {@link AllocationLedger}: one another claim holds (unless either asked
 *       for admin access) or the device plugin handed out is refused, naming the holder;</li>
 *   <li>each whole GPU the claim asks to time-slice gets compute mode DEFAULT ({@link TimeSlicing}); one that cannot
 *       (an MPS daemon holds it, NVML refuses) refuses the claim and releases its reservation;</li>
 *   <li>the GPUs the claim asks to share through MPS get the claim's MPS control daemon ({@link MpsSharing}), whose
 *       CDI edits go into the claim's spec; one it cannot start refuses the claim and releases its reservation
 *       (unpreparing stops it, and a start resumes the daemons of the checkpoint's claims: {@link #resumeMps});</li>
 *   <li>the claim's CDI spec is written and the claim checkpointed, both at once and both done before the answer
 *       ({@link #written}; when one fails, the other is undone and the reservation released), then the devices are
 *       returned with their CDI names.</li>
 * </ol>
 * Before any of it, the kubelet's reference is checked ({@link ClaimRefs}): a claim without UID, namespace or name
 * fails alone, and so does one whose preparing throws.
 * Unpreparing removes the claim's spec by its UID and forgets the claim; a claim it never prepared is a success.
 *
 * <p>Thread-safety: all methods may be called from any thread; calls are serialised.
 */
public final class ClaimPreparer {

    private static final System.Logger LOG = System.getLogger(ClaimPreparer.class.getName());

    private final String pool;
    private final ClaimSource claims;
    private final ClaimCheckpoint checkpoint;
    private final ClaimSpecs specs;
    private final Supplier<NodeDevices> devices;
    private final Function<String, Optional<String>> health;
    private final AllocationLedger ledger;
    private final TimeSlicing timeSlicing;
    private final MpsSharing mps;
    private final InstantSource clock;
    private final DraMetrics metrics;

    /**
     * @param pool    this node's pool (its name)
     * @param devices the node's devices now
     * @param health  why a device (by UUID) is not Healthy; empty when it is
     * @param ledger  the node's record of who holds which GPU: a claim's devices are reserved before anything is written
     *                for it, and released when it is unprepared
     * @param timeSlicing gives the GPUs of a claim that asks for {@code TimeSlicing} the compute mode it needs
     * @param mps     runs the MPS control daemon of each claim that asks for {@code MPS}
     * @param clock   when a reservation is made
     */
    public ClaimPreparer(String pool, ClaimSource claims, ClaimCheckpoint checkpoint, ClaimSpecs specs,
                         Supplier<NodeDevices> devices, Function<String, Optional<String>> health, AllocationLedger ledger,
                         TimeSlicing timeSlicing, MpsSharing mps, InstantSource clock, DraMetrics metrics) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.claims = Objects.requireNonNull(claims, "claims");
        this.checkpoint = Objects.requireNonNull(checkpoint, "checkpoint");
        this.specs = Objects.requireNonNull(specs, "specs");
        this.devices = Objects.requireNonNull(devices, "devices");
        this.health = Objects.requireNonNull(health, "health");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.timeSlicing = Objects.requireNonNull(timeSlicing, "timeSlicing");
        this.mps = Objects.requireNonNull(mps, "mps");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /** Without MPS for claims: a claim that asks for {@code MPS} is refused ({@link MpsSharing#unavailable}). */
    public ClaimPreparer(String pool, ClaimSource claims, ClaimCheckpoint checkpoint, ClaimSpecs specs,
                         Supplier<NodeDevices> devices, Function<String, Optional<String>> health, AllocationLedger ledger,
                         TimeSlicing timeSlicing, InstantSource clock, DraMetrics metrics) {
        this(pool, claims, checkpoint, specs, devices, health, ledger, timeSlicing, MpsSharing.unavailable(
                java.nio.file.Path.of("/nonexistent"), "this driver runs no MPS control daemons"), clock, metrics);
    }

    /**
     * After a start: the MPS control daemon of every claim the checkpoint holds that has one runs again (taken over, or
     * started again); why one cannot, a line each (logged).
     */
    public synchronized List<String> resumeMps() {
        List<String> problems = new ArrayList<>();
        for (PreparedClaim claim : checkpoint.claims()) {
            mps.resume(claim.claim()).ifPresent(problem -> {
                LOG.log(System.Logger.Level.ERROR, problem);
                problems.add(problem);
            });
        }
        return problems;
    }

    /**
     * Prepares each claim; the answer has an entry per claim UID, in order. A claim whose reference is bad (no UID,
     * namespace or name; one UID sent as two claims) or whose preparing fails in an unexpected way fails alone: the
     * others of the call are prepared.
     */
    public synchronized Map<String, ClaimResult> prepare(List<ClaimRef> requested) {
        Map<String, ClaimResult> results = new LinkedHashMap<>();
        Map<String, String> duplicates = ClaimRefs.conflictingDuplicates(requested);
        for (ClaimRef claim : requested) {
            if (results.containsKey(claim.uid())) {
                continue; // the same claim twice: answered once
            }
            Optional<String> bad = Optional.ofNullable(duplicates.get(claim.uid())).or(() -> ClaimRefs.problem(claim));
            ClaimResult result = bad.<ClaimResult>map(ClaimResult.Failed::new).orElseGet(() -> guarded(claim));
            switch (result) {
                case ClaimResult.Prepared prepared -> LOG.log(System.Logger.Level.INFO, "prepared claim {0}: {1}", claim,
                        prepared.devices().stream().map(PreparedDevice::device).toList());
                case ClaimResult.Failed failed -> LOG.log(System.Logger.Level.WARNING, "could not prepare claim {0}: {1}",
                        claim, failed.error());
            }
            metrics.claim("prepare", result instanceof ClaimResult.Prepared);
            results.put(claim.uid(), result);
        }
        return results;
    }

    /** Unprepares each claim; the answer has an entry per claim UID, in order: empty, or the error. */
    public synchronized Map<String, Optional<String>> unprepare(List<ClaimRef> requested) {
        Map<String, Optional<String>> results = new LinkedHashMap<>();
        Map<String, String> duplicates = ClaimRefs.conflictingDuplicates(requested);
        for (ClaimRef claim : requested) {
            if (results.containsKey(claim.uid())) {
                continue;
            }
            Optional<String> error = Optional.ofNullable(duplicates.get(claim.uid())).or(() -> ClaimRefs.problem(claim))
                    .or(() -> {
                        try {
                            return unprepare(claim);
                        } catch (RuntimeException e) {
                            LOG.log(System.Logger.Level.ERROR, MessageFormat.format("unpreparing claim {0} failed", claim), e);
                            return Optional.of("internal error unpreparing claim: " + e);
                        }
                    });
            error.ifPresentOrElse(e -> LOG.log(System.Logger.Level.WARNING, "could not unprepare claim {0}: {1}", claim, e),
                    () -> LOG.log(System.Logger.Level.INFO, "unprepared claim {0}", claim));
            metrics.claim("unprepare", error.isEmpty());
            results.put(claim.uid(), error);
        }
        return results;
    }

    /** Prepares one claim; a bug (any unexpected exception) fails this claim alone, its stack logged once. */
    private ClaimResult guarded(ClaimRef claim) {
        try {
            return prepare(claim);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, MessageFormat.format("preparing claim {0} failed", claim), e);
            return new ClaimResult.Failed("internal error preparing claim: " + e);
        }
    }

    /** The claims prepared now. */
    public synchronized Collection<PreparedClaim> prepared() {
        return checkpoint.claims();
    }

    private ClaimResult prepare(ClaimRef claim) {
        Optional<PreparedClaim> done = checkpoint.get(claim.uid());
        if (done.isPresent()) {
            return again(done.get());
        }
        String named = "ResourceClaim " + claim.namespace() + "/" + claim.name();
        List<AllocatedDevice> allocated;
        List<ClaimConfig> configs;
        switch (claims.read(claim)) {
            case ClaimAllocation.NotFound notFound -> {
                return new ClaimResult.Failed(named + " was not found in the API server (deleted?)");
            }
            case ClaimAllocation.NotAllocated notAllocated -> {
                return new ClaimResult.Failed(named + " is not allocated");
            }
            case ClaimAllocation.Replaced replaced -> {
                return new ClaimResult.Failed(named + " has UID " + replaced.currentUid() + ", not " + claim.uid()
                        + ": the claim was deleted and created again");
            }
            case ClaimAllocation.Unreadable unreadable -> {
                return new ClaimResult.Failed("could not read " + named + ": " + unreadable.reason());
            }
            case ClaimAllocation.Allocated found -> {
                allocated = found.devices();
                configs = found.configs();
            }
        }
        Optional<String> nothing = nothingToPrepare(named, allocated);
        if (nothing.isPresent()) {
            return new ClaimResult.Failed(nothing.get());
        }
        NodeDevices node = devices.get();
        Map<String, List<String>> requestsByDevice = new LinkedHashMap<>();
        Map<String, Boolean> adminOnly = new LinkedHashMap<>();
        for (AllocatedDevice device : allocated) {
            if (!device.driver().equals(DraNames.DRIVER)) {
                continue;
            }
            if (!device.pool().equals(pool)) {
                return new ClaimResult.Failed("device " + device.device() + " of request " + device.request()
                        + " was allocated from pool " + device.pool() + ", but this node's pool is " + pool);
            }
            List<String> requests = requestsByDevice.computeIfAbsent(device.device(), k -> new ArrayList<>());
            if (!requests.contains(device.requestName())) {
                requests.add(device.requestName());
            }
            adminOnly.merge(device.device(), device.adminAccess(), Boolean::logicalAnd);
        }
        List<DraDevice> chosen = new ArrayList<>();
        for (Map.Entry<String, List<String>> entry : requestsByDevice.entrySet()) {
            String name = entry.getKey();
            if (node.unreadable().isPresent()) {
                return new ClaimResult.Failed("device " + name + " cannot be prepared: this node's GPUs cannot be read ("
                        + node.unreadable().get() + ")");
            }
            Optional<DraDevice> device = node.device(name);
            if (device.isEmpty()) {
                return new ClaimResult.Failed("device " + name + " (request " + String.join(", ", entry.getValue())
                        + ") is not on this node any more: it has " + node.devices().stream().map(DraDevice::name).toList());
            }
            Optional<String> problem = health.apply(device.get().uuid());
            if (problem.isPresent()) {
                return new ClaimResult.Failed("device " + name + " (" + device.get().uuid() + ") is unhealthy: " + problem.get());
            }
            chosen.add(device.get());
        }
        Map<String, DeviceSharing> sharing;
        try {
            sharing = sharing(configs, allocated, node);
        } catch (OpaqueConfigs.ConfigException e) {
            return new ClaimResult.Failed(e.getMessage());
        }
        Optional<String> unusable = sharingProblem(sharing);
        if (unusable.isPresent()) {
            return new ClaimResult.Failed(unusable.get());
        }
        List<PreparedDevice> prepared = chosen.stream().map(d -> new PreparedDevice(requestsByDevice.get(d.name()), pool,
                d.name(), d.uuid(), List.of(DraNames.cdiDeviceId(claim.uid(), d.name())))).toList();
        List<AllocationLedger.ClaimDevice> held = chosen.stream()
                .map(d -> new AllocationLedger.ClaimDevice(d.name(), DeviceUnit.of(d.device()), adminOnly.get(d.name()))).toList();
        if (ledger.reserveForClaim(claim, held, clock.instant()) instanceof AllocationLedger.Reservation.Refused refused) {
            return new ClaimResult.Failed(refusal(refused, held));
        }
        for (DraDevice device : chosen) {
            boolean timeSliced = sharing.getOrDefault(device.name(), DeviceSharing.DEFAULT).strategy()
                    .filter("TimeSlicing"::equals).isPresent();
            Optional<String> refused = timeSliced && device.type().equals(DraNames.TYPE_GPU)
                    ? timeSlicing.apply(device) : Optional.empty();
            if (refused.isPresent()) {
                ledger.releaseClaim(claim.uid());
                return new ClaimResult.Failed(refused.get());
            }
        }
        CdiSpec.ContainerEdits claimEdits = CdiSpec.ContainerEdits.EMPTY;
        List<DraDevice> mpsShared = chosen.stream().filter(d -> strategy(sharing, d).filter("MPS"::equals).isPresent()).toList();
        if (!mpsShared.isEmpty()) {
            MpsConfig config = sharing.get(mpsShared.getFirst().name()).mps().orElse(MpsConfig.NONE);
            switch (mps.start(claim, mpsShared, config)) {
                case MpsSharing.Result.Refused refused -> {
                    ledger.releaseClaim(claim.uid());
                    return new ClaimResult.Failed(refused.reason());
                }
                case MpsSharing.Result.Started started -> claimEdits = started.edits();
            }
        }
        return written(claim, node, chosen, new PreparedClaim(claim, prepared), claimEdits);
    }

    private static Optional<String> strategy(Map<String, DeviceSharing> sharing, DraDevice device) {
        return sharing.getOrDefault(device.name(), DeviceSharing.DEFAULT).strategy();
    }

    /**
     * Writes the claim's CDI spec and its checkpoint entry at the same time, the spec on a virtual thread: each is
     * replaced atomically on its own ({@link dev.kgpu.cdi.DurableFiles}; the spec fsync'd, renamed, folder fsync'd; the
     * checkpoint as {@link ClaimCheckpoint#survives} says), and their waits overlap instead of adding up. Both are
     * written before the claim is answered. A crash in between leaves a
     * spec without a checkpoint entry (harmless: the kubelet prepares the claim again, unprepare removes a spec by UID)
     * or an entry without its spec (written again when the kubelet repeats the call, {@link #again}). When one of the
     * two fails, the other is undone and the reservation released; an entry that cannot be undone keeps its
     * reservation, so that the ledger and the checkpoint still agree.
     */
    private ClaimResult written(ClaimRef claim, NodeDevices node, List<DraDevice> chosen, PreparedClaim prepared,
                                CdiSpec.ContainerEdits claimEdits) {
        FutureTask<Optional<String>> spec = new FutureTask<>(() -> {
            try {
                specs.write(claim.uid(), node, chosen, claimEdits);
                return Optional.empty();
            } catch (CdiException e) {
                return Optional.of("could not write the claim's CDI spec in " + specs.directory() + ": " + e.getMessage());
            }
        });
        Thread.ofVirtual().name("dra-claim-spec-" + claim.uid()).start(spec);
        Optional<String> checkpointError = Optional.empty();
        try {
            checkpoint.put(prepared);
        } catch (CheckpointException e) {
            checkpointError = Optional.of(e.getMessage());
        }
        Optional<String> specError = outcome(spec);
        if (specError.isEmpty() && checkpointError.isEmpty()) {
            return new ClaimResult.Prepared(prepared.devices());
        }
        if (specError.isEmpty()) {
            removeQuietly(claim.uid());
        }
        if (checkpointError.isEmpty()) {
            try {
                checkpoint.remove(claim.uid());
            } catch (CheckpointException e) {
                LOG.log(System.Logger.Level.ERROR, "claim {0} stays in the checkpoint, and its devices reserved, although"
                        + " its CDI spec could not be written: {1}; the kubelet's next call writes the spec again", claim,
                        e.getMessage());
                return new ClaimResult.Failed(specError.get());
            }
        }
        mps.stop(claim.uid());
        ledger.releaseClaim(claim.uid());
        return new ClaimResult.Failed(specError.orElseGet(checkpointError::orElseThrow));
    }

    /** What the spec's writer answered, waiting for it (a disk write: bounded, so an interrupt is kept for later). */
    private static Optional<String> outcome(FutureTask<Optional<String>> spec) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return spec.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException bug) {
                        throw bug;
                    }
                    throw new IllegalStateException(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Why a claim allocated {@code allocated} has nothing this driver can prepare: no result at all, none of this
     * driver, or a result of it that names no device. NVIDIA's driver prepares such a claim with no device; kgpu refuses
     * it, since no CDI spec can be written for it and a kubelet never sends it (its DRA manager batches claims by the
     * drivers of their results).
     */
    static Optional<String> nothingToPrepare(String named, List<AllocatedDevice> allocated) {
        if (allocated.isEmpty()) {
            return Optional.of(named + " has no allocated device: nothing to prepare");
        }
        if (allocated.stream().noneMatch(d -> d.driver().equals(DraNames.DRIVER))) {
            return Optional.of(named + " was allocated no device of " + DraNames.DRIVER + " (only "
                    + String.join(", ", allocated.stream().map(AllocatedDevice::driver).distinct().toList()) + ")");
        }
        for (int i = 0; i < allocated.size(); i++) {
            AllocatedDevice device = allocated.get(i);
            if (device.driver().equals(DraNames.DRIVER) && (device.pool().isEmpty() || device.device().isEmpty())) {
                return Optional.of(named + " result " + i + " (request '" + device.request() + "') names no device"
                        + " (pool '" + device.pool() + "', device '" + device.device() + "')");
            }
        }
        return Optional.empty();
    }

    /** The sharing each device of this driver is asked for, by device name ({@link OpaqueConfigs#resolve}). */
    static Map<String, DeviceSharing> sharing(List<ClaimConfig> configs, List<AllocatedDevice> allocated, NodeDevices node)
            throws OpaqueConfigs.ConfigException {
        if (configs.isEmpty()) {
            return Map.of();
        }
        List<OpaqueConfigs.Target> targets = allocated.stream().filter(d -> d.driver().equals(DraNames.DRIVER))
                .map(d -> new OpaqueConfigs.Target(d.request(), d.device(),
                        node.device(d.device()).map(DraDevice::type).orElse(DraNames.TYPE_GPU)))
                .toList();
        return OpaqueConfigs.resolve(DraNames.DRIVER, configs, targets);
    }

    /**
     * Why the claim's sharing (its opaque configs, {@code GpuConfig}, {@code MigDeviceConfig}, decoded and checked as
     * NVIDIA's driver does: {@link #sharing}) asks for what kgpu cannot apply. {@code TimeSlicing} with interval
     * {@code Default} is applied after the reservation ({@link TimeSlicing}: the GPU's compute mode made DEFAULT), and
     * {@code TimeSlicing} on a MIG device changes nothing (as in NVIDIA's driver); another interval needs
     * {@code nvidia-smi compute-policy} (NVML has no setter), which kgpu does not run. {@code MPS} is applied after the
     * reservation ({@link MpsSharing}: one control daemon per claim), so its devices must ask for one set of settings.
     */
    private static Optional<String> sharingProblem(Map<String, DeviceSharing> sharing) {
        for (Map.Entry<String, DeviceSharing> entry : sharing.entrySet()) {
            DeviceSharing asked = entry.getValue();
            if (asked.strategy().filter("MPS"::equals).isPresent()) {
                Optional<Map.Entry<String, DeviceSharing>> other = sharing.entrySet().stream()
                        .filter(e -> e.getValue().strategy().filter("MPS"::equals).isPresent())
                        .filter(e -> !e.getValue().mps().equals(asked.mps())).findFirst();
                if (other.isPresent()) {
                    return Optional.of("devices " + entry.getKey() + " and " + other.get().getKey() + " of the claim ask for"
                            + " different MPS settings; kgpu runs one MPS control daemon per claim, with one set of"
                            + " settings (NVIDIA's driver runs one per config)");
                }
            }
            Optional<String> interval = asked.interval().filter(i -> !i.equals("Default"));
            if (interval.isPresent()) {
                return Optional.of("time-slice interval " + interval.get() + " cannot be applied to device " + entry.getKey()
                        + ": NVML has no setter for it and kgpu does not run nvidia-smi; only interval Default can be applied");
            }
        }
        return Optional.empty();
    }

    /**
     * A refusal by the ledger in one line per device in the way: another claim holds it (NVIDIA's words, so that a
     * search for them finds kgpu's too), or the device plugin handed it out.
     */
    static String refusal(AllocationLedger.Reservation.Refused refused, List<AllocationLedger.ClaimDevice> asked) {
        List<String> lines = new ArrayList<>();
        for (AllocationLedger.Conflict conflict : refused.conflicts()) {
            String device = asked.stream().filter(d -> d.unit().equals(conflict.unit())).map(AllocationLedger.ClaimDevice::name)
                    .findFirst().orElse(conflict.unit().uuid());
            lines.add(switch (conflict.holder()) {
                case AllocationLedger.Hold.DraHold other -> "requested device " + device
                        + " is already allocated to different claim " + other.claim().uid() + " (" + other.claim().namespace()
                        + "/" + other.claim().name() + ", device " + other.device() + ", prepared " + other.since() + ")";
                case AllocationLedger.Hold.DevicePluginHold plugin -> "requested device " + device + " ("
                        + conflict.unit().uuid() + ") is in use through the device plugin: " + plugin.describe();
            });
        }
        return String.join("; ", lines);
    }

    /** A claim prepared before: the same devices; its spec written again if it is gone (a cleared CDI folder). */
    private ClaimResult again(PreparedClaim done) {
        String uid = done.claim().uid();
        if (done.devices().isEmpty() || specs.exists(uid)) {
            return new ClaimResult.Prepared(done.devices());
        }
        NodeDevices node = devices.get();
        List<DraDevice> chosen = new ArrayList<>();
        for (PreparedDevice device : done.devices()) {
            Optional<DraDevice> now = node.device(device.device()).filter(d -> d.uuid().equals(device.uuid()));
            if (now.isEmpty()) {
                return new ClaimResult.Failed("the CDI spec of this claim, prepared before, is gone from " + specs.directory()
                        + " and device " + device.device() + " (" + device.uuid() + ") is not on this node any more to write it again");
            }
            chosen.add(now.get());
        }
        try {
            specs.write(uid, node, chosen, mps.edits(uid).orElse(CdiSpec.ContainerEdits.EMPTY));
        } catch (CdiException e) {
            return new ClaimResult.Failed("could not write the claim's CDI spec again in " + specs.directory() + ": " + e.getMessage());
        }
        LOG.log(System.Logger.Level.WARNING, "the CDI spec of claim {0}, prepared before, was gone; wrote it again", done.claim());
        return new ClaimResult.Prepared(done.devices());
    }

    private Optional<String> unprepare(ClaimRef claim) {
        try {
            specs.remove(claim.uid());
        } catch (CdiException e) {
            return Optional.of(e.getMessage());
        }
        mps.stop(claim.uid());
        try {
            if (!checkpoint.remove(claim.uid())) {
                LOG.log(System.Logger.Level.DEBUG, "claim {0} was not prepared here; nothing to undo", claim);
            }
        } catch (CheckpointException e) {
            return Optional.of(e.getMessage());
        }
        ledger.releaseClaim(claim.uid());
        return Optional.empty();
    }

    private void removeQuietly(String uid) {
        try {
            specs.remove(uid);
        } catch (CdiException e) {
            LOG.log(System.Logger.Level.WARNING, "could not remove the CDI spec of claim {0} after a failed checkpoint: {1}",
                    uid, e.getMessage());
        }
    }
}
