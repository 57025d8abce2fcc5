package dev.kgpu.plugin.dra;

import dev.kgpu.agent.Backoff;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.dra.config.MpsConfig;
import dev.kgpu.plugin.dra.config.OpaqueConfigs;
import dev.kgpu.plugin.mps.ControlProgram;
import dev.kgpu.plugin.mps.MpsDaemon;
import dev.kgpu.plugin.mps.MpsPaths;
import dev.kgpu.plugin.mps.MpsShare;
import dev.kgpu.plugin.mps.MpsStartException;
import dev.kgpu.plugin.mps.WatchedDaemon;
import dev.kgpu.plugin.node.ClaimRef;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * {@code MPS} sharing for claims, as NVIDIA's DRA driver gives it: one MPS control daemon per claim, for the claim's
 * GPUs only, with its own pipe, log and shm folders, the GPUs in compute mode {@code EXCLUSIVE_PROCESS}, and the claim's
 * CDI spec carrying {@code CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps} with the pipe folder mounted there and the shm
 * folder mounted at {@code /dev/shm}. NVIDIA runs the daemon as a Deployment; kgpu starts it from the plugin's own
 * process with the shared {@link MpsDaemon} (the device plugin's daemons are the same code):
 * <ul>
 *   <li>its folder is {@code <MPS root>/claims/<claim UID>} ({@code pipe}, {@code log}, {@code shm},
 *       {@code .compute-modes}, and {@code .claim}: the GPUs and limits it was started with, so that a restarted
 *       plugin takes the daemon over, or starts it again, for a claim its checkpoint holds);</li>
 *   <li>the daemon gets {@code CUDA_VISIBLE_DEVICES} = the claim's GPUs, the pinned memory limits
 *       ({@code set_default_device_pinned_mem_limit <place in CUDA_VISIBLE_DEVICES> <MiB>M}) and the active thread
 *       percentage, when the claim sets them;</li>
 *   <li>refused, per claim in one line: MIG devices, a GPU another MPS daemon holds (the device plugin's, or another
 *       claim's: its {@code .compute-modes} lists it), no host MPS root to mount from ({@code MPS_ROOT}), no control
 *       program, and whatever the daemon's start refuses ({@code PROHIBITED} mode, NVML refusing the mode).</li>
 * </ul>
 * Unpreparing stops the daemon, gives each GPU its compute mode back and removes the folder. While the claim is
 * prepared its daemon is watched ({@link WatchedDaemon}, as the device plugin's daemons are): {@link #check} finds one
 * that stopped, which is started again with backoff from what it was started with, one line each, counted
 * ({@link DraMetrics#mpsDaemonRestarted}); {@link #problems} names each claim whose daemon does not run meanwhile.
 *
 * <p>Thread-safety: thread-safe; every call and every restart runs under this object's lock (the
 * {@link ClaimPreparer} calls it under its own lock, and never the other way round).
 */
public final class MpsSharing {

    /** Where a claim's containers find the daemon's pipe folder, as NVIDIA's driver mounts it. */
    public static final String CONTAINER_PIPE = "/tmp/nvidia-mps";
    static final String CLAIMS = MpsPaths.Holder.CLAIMS;
    static final String SETTINGS_FILE = ".claim";
    private static final List<String> MOUNT_OPTIONS = List.of("rw", "nosuid", "nodev", "bind");
    private static final System.Logger LOG = System.getLogger(MpsSharing.class.getName());

    private final MpsPaths paths;
    private final Optional<Path> hostRoot;
    private final Supplier<Optional<ControlProgram>> program;
    private final String programMissing;
    private final Supplier<ComputeModes> modes;
    private final Optional<String> off;
    private final WatchedDaemon.Timers timers;
    private final Backoff.Policy retries;
    private final DraMetrics metrics;
    /** Each claim's daemon by claim UID, watched while the claim is prepared. */
    private final Map<String, WatchedDaemon> daemons = new LinkedHashMap<>();

    /**
     * @param paths          the MPS root as this process sees it ({@code KGPU_MPS_CONTAINER_ROOT})
     * @param hostRoot       the same folder on the host ({@code MPS_ROOT}), which the CDI mounts name; empty: not set
     * @param program        the control program, looked up at each start; empty when it is not there
     * @param programMissing why it is not there, for the refusal
     * @param modes          the GPUs' compute modes (NVML)
     * @param timers         runs a restart of a stopped daemon after its backoff (on any thread: it takes this lock)
     * @param retries        the waits between restarts of a daemon
     */
    public MpsSharing(MpsPaths paths, Optional<Path> hostRoot, Supplier<Optional<ControlProgram>> program,
                      String programMissing, Supplier<ComputeModes> modes, WatchedDaemon.Timers timers,
                      Backoff.Policy retries, DraMetrics metrics) {
        this(paths, hostRoot, program, programMissing, modes, Optional.empty(), timers, retries, metrics);
    }

    private MpsSharing(MpsPaths paths, Optional<Path> hostRoot, Supplier<Optional<ControlProgram>> program,
                       String programMissing, Supplier<ComputeModes> modes, Optional<String> off,
                       WatchedDaemon.Timers timers, Backoff.Policy retries, DraMetrics metrics) {
        this.off = off;
        this.timers = Objects.requireNonNull(timers, "timers");
        this.retries = Objects.requireNonNull(retries, "retries");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.paths = Objects.requireNonNull(paths, "paths");
        this.hostRoot = Objects.requireNonNull(hostRoot, "hostRoot");
        this.program = Objects.requireNonNull(program, "program");
        this.programMissing = Objects.requireNonNull(programMissing, "programMissing");
        this.modes = Objects.requireNonNull(modes, "modes");
    }

    /**
     * The DRA driver's: the MPS root and the host's from {@code settings}, the control program
     * ({@code KGPU_MPS_CONTROL}) looked up on this process's {@code PATH} at each start.
     */
    public static MpsSharing of(DraSettings settings, Supplier<ComputeModes> modes, WatchedDaemon.Timers timers,
                                Backoff.Policy retries, DraMetrics metrics) {
        Optional<String> path = Optional.ofNullable(System.getenv("PATH"));
        String control = settings.mpsControl();
        return new MpsSharing(new MpsPaths(settings.mpsRoot()), settings.mpsHostRoot(),
                () -> ControlProgram.locate(control, path).map(p -> new ControlProgram(p, ControlProgram.TIMEOUT)),
                control + " was not found (" + ControlProgram.searched(control, path) + "); MPS needs the driver's compute"
                        + " utilities in the plugin's container (NVIDIA_DRIVER_CAPABILITIES=compute,utility)", modes,
                timers, retries, metrics);
    }

    /** For tests and nodes without MPS: every MPS claim is refused with {@code why}. */
    public static MpsSharing unavailable(Path root, String why) {
        return new MpsSharing(new MpsPaths(root), Optional.empty(), Optional::empty, why, () -> {
            throw new DeviceSourceException(why, null);
        }, Optional.of(why), (delay, task) -> () -> false, Backoff.Policy.DEFAULT, DraMetrics.NONE);
    }

    /** The daemon folder's name under the MPS root of claim {@code uid}. */
    static String name(String uid) {
        return CLAIMS + "/" + uid;
    }

    /**
     * Starts claim {@code claim}'s daemon for {@code gpus} with {@code config}, or takes over the one a run before this
     * one left for it; the CDI edits its containers need, or why it cannot be done (one line).
     */
    public synchronized Result start(ClaimRef claim, List<DraDevice> gpus, MpsConfig config) {
        String named = gpus.stream().map(d -> d.name() + " (" + d.uuid() + ")").collect(Collectors.joining(", "));
        String refused = "sharing strategy MPS cannot be applied to " + named + ": ";
        Optional<DraDevice> mig = gpus.stream().filter(d -> !(d.device() instanceof Gpu)).findFirst();
        if (mig.isPresent()) {
            return new Result.Refused("sharing strategy MPS cannot be applied to MIG device " + mig.get().name() + " ("
                    + mig.get().uuid() + "): kgpu runs MPS control daemons for whole GPUs only");
        }
        List<String> uuids = gpus.stream().map(DraDevice::uuid).toList();
        Map<String, Long> limits;
        try {
            limits = config.pinnedMemoryMiB(uuids);
        } catch (OpaqueConfigs.ConfigException e) {
            return new Result.Refused("error validating GPU config: " + e.getMessage());
        }
        if (off.isPresent()) {
            return new Result.Refused(refused + off.get());
        }
        if (hostRoot.isEmpty()) {
            return new Result.Refused(refused + "the MPS root on the host (MPS_ROOT, --mps-root, flags.mpsRoot) is not"
                    + " set, so the claim's containers cannot be given the daemon's pipe folder");
        }
        for (DraDevice gpu : gpus) {
            Optional<MpsPaths.Holder> holder = paths.holding(gpu.uuid()).filter(h -> !h.name().equals(name(claim.uid())));
            if (holder.isPresent()) {
                return new Result.Refused(refused + "GPU " + gpu.name() + " is held by the MPS control daemon of "
                        + holder.get().describe() + "; one GPU serves one MPS daemon");
            }
        }
        Optional<ControlProgram> control = program.get();
        if (control.isEmpty()) {
            return new Result.Refused(refused + programMissing);
        }
        List<MpsShare.GpuShare> shares = gpus.stream().map(d -> new MpsShare.GpuShare(((Gpu) d.device()).index(),
                d.uuid(), 1, limits.getOrDefault(d.uuid(), 0L))).toList();
        MpsShare share = new MpsShare(name(claim.uid()), shares, config.activeThreadPercentage().orElse(0));
        MpsDaemon daemon = daemon(share, control.get());
        try {
            Files.createDirectories(shm(claim.uid()));
            writeSettings(share);
            if (!daemon.adopt()) {
                daemon.start();
            }
        } catch (IOException e) {
            remove(daemon);
            return new Result.Refused(refused + "its folder in the MPS root " + paths.root() + " cannot be written ("
                    + e.getMessage() + ")");
        } catch (MpsStartException | DeviceSourceException e) {
            remove(daemon);
            return new Result.Refused(refused + e.getMessage());
        }
        daemons.put(claim.uid(), watched(claim, daemon));
        LOG.log(System.Logger.Level.INFO, "started the MPS control daemon of claim {0}: {1}", claim, daemon.describe());
        return new Result.Started(edits(claim.uid()).orElseThrow());
    }

    /** What {@link #start} answers. */
    public sealed interface Result {
        /** The daemon runs; the claim's containers need {@code edits}. */
        record Started(CdiSpec.ContainerEdits edits) implements Result {
        }

        /** Why not, in one line. */
        record Refused(String reason) implements Result {
        }
    }

    /** The CDI edits of claim {@code uid}'s daemon, when it has one (its folder is there) and the host root is known. */
    public synchronized Optional<CdiSpec.ContainerEdits> edits(String uid) {
        if (hostRoot.isEmpty() || !Files.isDirectory(paths.resource(name(uid)))) {
            return Optional.empty();
        }
        Path host = hostRoot.get().resolve(CLAIMS).resolve(uid);
        return Optional.of(new CdiSpec.ContainerEdits(List.of("CUDA_MPS_PIPE_DIRECTORY=" + CONTAINER_PIPE), List.of(),
                List.of(), List.of(new CdiSpec.Mount(host.resolve("shm").toString(), "/dev/shm", MOUNT_OPTIONS),
                new CdiSpec.Mount(host.resolve("pipe").toString(), CONTAINER_PIPE, MOUNT_OPTIONS))));
    }

    /**
     * After a restart: the daemon of claim {@code uid}, which the checkpoint holds, runs again, taken over when it still
     * answers or started again with the GPUs and limits its folder records. Nothing when the claim has no daemon folder;
     * why it cannot run otherwise (then it is watched all the same: started again with backoff, and named by
     * {@link #problems} meanwhile).
     */
    public synchronized Optional<String> resume(ClaimRef claim) {
        String uid = claim.uid();
        if (daemons.containsKey(uid)) {
            return Optional.empty();
        }
        Optional<MpsShare> share = readSettings(uid);
        if (share.isEmpty()) {
            return Optional.empty();
        }
        Optional<ControlProgram> control = program.get();
        if (control.isEmpty()) {
            String problem = "the MPS control daemon of claim " + claim + " cannot be started again: " + programMissing;
            WatchedDaemon watched = watched(claim, daemon(share.get(), noProgram()));
            watched.mps().adopt(); // the modes its folder records, given back at unprepare even if it never runs
            watched.startAgainLater(programMissing);
            daemons.put(uid, watched);
            return Optional.of(problem);
        }
        MpsDaemon daemon = daemon(share.get(), control.get());
        try {
            if (daemon.adopt()) {
                LOG.log(System.Logger.Level.INFO, "took over the MPS control daemon of claim {0}: {1}", claim, daemon.describe());
            } else {
                daemon.start();
                LOG.log(System.Logger.Level.WARNING, "the MPS control daemon of claim {0} was gone; started it again: {1}",
                        claim, daemon.describe());
            }
        } catch (MpsStartException | DeviceSourceException e) {
            String problem = "the MPS control daemon of claim " + claim + " cannot be started again: " + e.getMessage();
            WatchedDaemon watched = watched(claim, daemon(share.get(), control.get()));
            watched.mps().adopt();
            watched.startAgainLater(e.getMessage());
            daemons.put(uid, watched);
            return Optional.of(problem);
        }
        daemons.put(uid, watched(claim, daemon));
        return Optional.empty();
    }

    /**
     * Checks every claim's daemon: one that stopped is logged and started again with backoff ({@link WatchedDaemon}).
     * Runs the control program once per daemon, so not on a thread that must not wait.
     */
    public synchronized void check() {
        new ArrayList<>(daemons.values()).forEach(WatchedDaemon::check);
    }

    /** Why a claim's daemon does not run now, one line per claim (naming it); empty when all run. */
    public synchronized List<String> problems() {
        List<String> problems = new ArrayList<>();
        daemons.values().forEach(d -> d.problem().ifPresent(problems::add));
        return problems;
    }

    private WatchedDaemon watched(ClaimRef claim, MpsDaemon daemon) {
        return new WatchedDaemon("claim " + claim, daemon, () -> program.get().orElseThrow(() -> new MpsStartException(
                programMissing)), retries, (delay, task) -> timers.after(delay, () -> {
                    synchronized (this) {
                        task.run();
                    }
                }), new WatchedDaemon.Listener() {
                    @Override
                    public void restartFailed(String why) {
                        metrics.mpsDaemonRestarted(false);
                    }

                    @Override
                    public void restarted() {
                        metrics.mpsDaemonRestarted(true);
                    }
                });
    }

    private ControlProgram noProgram() {
        // one that cannot run: the daemon is not reached, the modes are still given back
        return new ControlProgram(paths.root().resolve(".no-control-program"), ControlProgram.TIMEOUT);
    }

    /**
     * Stops claim {@code uid}'s daemon, gives its GPUs their modes back and removes its folder; nothing when it has none
     * (found by its folder too, after a restart).
     */
    public synchronized void stop(String uid) {
        WatchedDaemon watched = daemons.remove(uid);
        MpsDaemon daemon;
        if (watched != null) {
            watched.stopWatching();
            daemon = watched.mps();
        } else {
            Optional<MpsShare> share = readSettings(uid);
            if (share.isEmpty()) {
                MpsDaemon.deleteTree(paths.resource(name(uid)));
                return;
            }
            Optional<ControlProgram> control = program.get();
            if (control.isEmpty()) {
                LOG.log(System.Logger.Level.WARNING, "the MPS control daemon of claim {0} cannot be told to quit: {1};"
                        + " giving its GPUs their compute modes back", uid, programMissing);
            }
            daemon = daemon(share.get(), control.orElseGet(this::noProgram));
            daemon.adopt();
        }
        remove(daemon);
        LOG.log(System.Logger.Level.INFO, "stopped the MPS control daemon of claim {0}", uid);
    }

    private MpsDaemon daemon(MpsShare share, ControlProgram control) {
        String visible = share.gpus().stream().map(MpsShare.GpuShare::uuid).collect(Collectors.joining(","));
        return new MpsDaemon(share, paths, control, modes, Map.of("CUDA_VISIBLE_DEVICES", visible));
    }

    /** Stops it and removes its folder (shm and {@code .claim} too), unless a GPU kept a mode it could not get back. */
    private static void remove(MpsDaemon daemon) {
        daemon.remove();
    }

    private Path shm(String uid) {
        return paths.resource(name(uid)).resolve("shm");
    }

    /** {@code .claim}: {@code threads <n>}, then {@code gpu <index> <uuid> <MiB>} per GPU, in order. */
    private void writeSettings(MpsShare share) throws IOException {
        StringBuilder text = new StringBuilder("threads " + share.threadPercentage() + "\n");
        share.gpus().forEach(g -> text.append("gpu ").append(g.index()).append(' ').append(g.uuid()).append(' ')
                .append(g.pinnedMemoryMiB()).append('\n'));
        Path file = paths.resource(share.resource()).resolve(SETTINGS_FILE);
        Path temporary = file.resolveSibling(SETTINGS_FILE + ".tmp");
        Files.writeString(temporary, text);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private Optional<MpsShare> readSettings(String uid) {
        Path file = paths.resource(name(uid)).resolve(SETTINGS_FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            int threads = 0;
            List<MpsShare.GpuShare> gpus = new ArrayList<>();
            for (String line : Files.readAllLines(file)) {
                String[] words = line.strip().split("\\s+");
                if (words.length == 2 && words[0].equals("threads")) {
                    threads = Integer.parseInt(words[1]);
                } else if (words.length == 4 && words[0].equals("gpu")) {
                    gpus.add(new MpsShare.GpuShare(Integer.parseInt(words[1]), words[2], 1, Long.parseLong(words[3])));
                }
            }
            return gpus.isEmpty() ? Optional.empty() : Optional.of(new MpsShare(name(uid), gpus, threads));
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "{0} cannot be read ({1}); claim {2}''s MPS daemon is not resumed", file,
                    e.getMessage(), uid);
            return Optional.empty();
        }
    }
}
