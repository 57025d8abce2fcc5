package dev.kgpu.plugin.mps;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.OncePerCause;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.node.UnservableException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * kgpu as NVIDIA's {@code mps-control-daemon} (k8s-device-plugin v0.17, {@code cmd/mps-control-daemon}): one MPS control
 * daemon for each MPS-shared resource the device plugin advertises, in NVIDIA's folders, with NVIDIA's default limits,
 * and {@code .ready} once all run. It is the agent kit's {@link Supervisor} handler: everything happens on its one
 * thread, in order.
 *
 * <p>Starting a resource's daemon, as NVIDIA's {@code daemon.go} does it, with the compute mode set through NVML:
 * <ol>
 *   <li>each GPU's compute mode is noted ({@link MpsPaths#computeModes}) and set to {@code EXCLUSIVE_PROCESS};</li>
 *   <li>{@code nvidia-cuda-mps-control -d} with {@code CUDA_MPS_PIPE_DIRECTORY=<root>/<resource>/pipe} and
 *       {@code CUDA_MPS_LOG_DIRECTORY=<root>/<resource>/log} (and nothing else in its environment);</li>
 *   <li>{@code set_default_device_pinned_mem_limit <index> <memory/replicas>M} for each GPU, in index order, then
 *       {@code set_default_active_thread_percentage <100/replicas>};</li>
 *   <li>{@code <root>/<resource>/.started}; after every resource, {@code <root>/.ready}.</li>
 * </ol>
 * What cannot start (the MPS root not writable, the control program missing, a GPU in {@code PROHIBITED} mode or one
 * whose mode cannot be set) is one line, logged once per cause; everything started is stopped again and each GPU gets
 * its mode back, then the start is retried with backoff. What MPS cannot share at all (MIG devices, a MIG-enabled GPU,
 * more replicas than MPS serves clients) ends the agent at start with one line, and keeps the running daemons on a
 * reload.
 *
 * <p>Running: every check interval each daemon must still run and answer
 * {@code get_default_active_thread_percentage}; one that does not is logged once and started again with backoff
 * (logged once when it runs again). On SIGHUP, or when the config file's contents change, every daemon is stopped
 * ({@code .ready} first, then {@code quit}, the compute modes given back, {@code .started} and the log folder removed)
 * and the daemons of the new settings started. The end stops them the same way.
 *
 * <p>Thread-safety: the {@link Supervisor.Handler} methods run on the supervisor's thread; {@link #status()} from any.
 */
public final class MpsControlDaemon implements Supervisor.Handler<MpsDaemonSettings, Runnable> {

    /** The supervisor's thread. */
    public static final String THREAD_NAME = "mps-control-daemon";
    /** What the running settings are called in the supervisor's SIGHUP lines. */
    public static final String RUNNING = "the running config";
    /** The client command that tells a daemon answers (NVIDIA's {@code AssertHealthy}). */
    public static final String HEALTH_COMMAND = "get_default_active_thread_percentage";
    /** How long a daemon has to end after {@code quit} before it is killed. */
    static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private static final System.Logger LOG = System.getLogger(MpsControlDaemon.class.getName());

    private final DeviceSource.Factory devices;
    private final Planner planner;
    private final Optional<String> path;
    private final Backoff.Policy retries;
    private final Runnable configChanged;

    private volatile Status status = new Status(false, Map.of(), Optional.of("starting"));

    // confined to the supervisor's thread
    private MpsDaemonSettings settings;
    private Supervisor.Control<Runnable> control;
    private DeviceSource source;
    private final List<Daemon> daemons = new ArrayList<>();
    private Backoff startBackoff;
    private Supervisor.Timer startRetry;
    private Supervisor.Timer check;
    private String problem = "starting";
    private String configHashAsked = "";
    private final OncePerCause startFailure = new OncePerCause(LOG, "the MPS control daemons started");

    /**
     * @param devices       opens the device source (NVML) the GPUs and their compute modes come from
     * @param planner       the device plugin's resources of the settings on this node
     * @param path          the process's {@code PATH}, where the control program is looked for
     * @param retries       the waits between starts, and restarts of a daemon
     * @param configChanged asks for a reload, as SIGHUP does, when the config file's contents changed
     */
    public MpsControlDaemon(DeviceSource.Factory devices, Planner planner,
                            Optional<String> path, Backoff.Policy retries, Runnable configChanged) {
        this.devices = Objects.requireNonNull(devices, "devices");
        this.planner = Objects.requireNonNull(planner, "planner");
        this.path = Objects.requireNonNull(path, "path");
        this.retries = Objects.requireNonNull(retries, "retries");
        this.configChanged = Objects.requireNonNull(configChanged, "configChanged");
    }

    /**
     * The resources the device plugin advertises with the agent's settings on a node (the MPS-shared ones get a daemon
     * each): the plugin's own planner, which this package does not name (the application wires it in).
     */
    @FunctionalInterface
    public interface Planner {
        /** @throws UnservableException when the settings cannot be planned on this node (one line why) */
        List<PluginResource> plan(MpsDaemonSettings settings, NodeInventory inventory);
    }

    /**
     * What runs now: every daemon's pid by resource, whether {@code .ready} is written, and why not all run.
     *
     * @param ready   every daemon of the settings started ({@code .ready} written)
     * @param running the daemons running, by resource
     * @param problem why not every daemon runs, or empty
     */
    public record Status(boolean ready, Map<String, Long> running, Optional<String> problem) {
        public Status {
            running = Map.copyOf(running);
            Objects.requireNonNull(problem, "problem");
        }
    }

    /** What runs now; thread-safe. */
    public Status status() {
        return status;
    }

    // ---------------------------------------------------------------------------------------------
    // the supervisor's thread

    @Override
    public void start(MpsDaemonSettings loaded, Supervisor.Control<Runnable> supervisor) {
        this.settings = Objects.requireNonNull(loaded, "loaded");
        this.control = Objects.requireNonNull(supervisor, "supervisor");
        this.startBackoff = new Backoff(retries);
        // the first start may wait on NVML and the daemons: as an event, so that the supervisor is there to stop it
        control.post(() -> {
            Optional<List<MpsShare>> shares = plan(loaded, true);
            shares.ifPresent(this::startAll);
        });
        scheduleCheck();
    }

    @Override
    public void on(Runnable task) {
        task.run();
        publish();
    }

    @Override
    public Supervisor.ReloadOutcome reload(MpsDaemonSettings candidate) {
        candidate.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, w.toString()));
        LOG.log(System.Logger.Level.INFO, "SIGHUP: Running with config:\n{0}", candidate.description());
        List<MpsShare> shares;
        try {
            shares = shares(candidate);
        } catch (UnservableException e) {
            configHashAsked = candidate.configHash();
            return new Supervisor.ReloadOutcome.Rejected(e.getMessage());
        } catch (DeviceSourceException e) {
            shares = null; // the devices cannot be read now: stop, and retry the start with the new settings
        }
        LOG.log(System.Logger.Level.INFO, "restarting the MPS control daemons");
        stopAll();
        settings = candidate;
        configHashAsked = "";
        startBackoff.reset();
        if (shares == null) {
            retryStart(new MpsStartException("the devices cannot be read"));
        } else {
            startAll(shares);
        }
        publish();
        return Supervisor.ReloadOutcome.APPLIED;
    }

    @Override
    public void reloadRejected(String reason) {
        publish();
    }

    @Override
    public void stop(Supervisor.Ending why) {
        cancel(check);
        stopAll();
        closeSource();
        problem = "stopped";
        publish();
    }

    // ---------------------------------------------------------------------------------------------
    // starting and stopping every daemon

    /** The shares of {@code candidate}; empty, after the agent was asked to exit, when MPS cannot share them. */
    private Optional<List<MpsShare>> plan(MpsDaemonSettings candidate, boolean exitWhenUnservable) {
        try {
            return Optional.of(shares(candidate));
        } catch (UnservableException e) {
            problem = e.getMessage();
            if (exitWhenUnservable) {
                control.exit(1, e.getMessage());
                return Optional.empty();
            }
            retryStart(e);
            return Optional.empty();
        } catch (DeviceSourceException e) {
            closeSource();
            retryStart(e);
            return Optional.empty();
        }
    }

    /** The MPS-shared resources of {@code candidate} on this node, as the device plugin plans them. */
    private List<MpsShare> shares(MpsDaemonSettings candidate) {
        if (source == null) {
            source = devices.open();
        }
        return MpsShare.of(planner.plan(candidate, source.inventory()));
    }

    private void startAll(List<MpsShare> shares) {
        cancel(startRetry);
        MpsPaths paths = settings.mps().paths();
        removeReady(paths);
        if (shares.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "No devices are configured for MPS sharing; Waiting indefinitely.");
            problem = "no devices are configured for MPS sharing";
            startFailure.cleared();
            return;
        }
        try {
            ControlProgram program = program();
            prepareRoot(paths, shares);
            for (MpsShare share : shares) {
                daemons.add(startDaemon(share, program, paths));
            }
            MpsDaemon.write(paths.ready());
        } catch (MpsStartException | DeviceSourceException e) {
            stopAll();
            if (e instanceof DeviceSourceException) {
                closeSource();
            }
            retryStart(e);
            return;
        }
        problem = null;
        startBackoff.reset();
        startFailure.cleared();
        LOG.log(System.Logger.Level.INFO, "MPS control daemons ready ({0}): {1}", paths.ready(),
                daemons.stream().map(Daemon::describe).collect(Collectors.joining("; ")));
    }

    private void retryStart(RuntimeException cause) {
        String message = cause.getMessage();
        problem = message;
        Duration wait = startBackoff.next();
        startFailure.occurred(System.Logger.Level.ERROR, message, "{0}; no MPS control daemon runs (retrying with backoff)",
                message);
        cancel(startRetry);
        startRetry = control.after(wait, () -> {
            startRetry = null;
            plan(settings, false).ifPresent(this::startAll);
        });
    }

    /** Stops every daemon: {@code .ready} goes first, then each daemon, last started first. */
    private void stopAll() {
        cancel(startRetry);
        startRetry = null;
        removeReady(settings.mps().paths());
        List<Daemon> started = new ArrayList<>(daemons);
        daemons.clear();
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).stop();
        }
    }

    private ControlProgram program() {
        String control = settings.mps().control();
        return ControlProgram.locate(control, path).map(p -> new ControlProgram(p, ControlProgram.TIMEOUT))
                .orElseThrow(() -> new MpsStartException(control + " was not found (" + ControlProgram.searched(control, path)
                        + "); MPS needs the driver's compute utilities (the NVIDIA container toolkit mounts them with"
                        + " NVIDIA_DRIVER_CAPABILITIES=compute,utility)"));
    }

    /** Creates every daemon's folders, as NVIDIA's daemon does (0755): the MPS root must be writable. */
    private static void prepareRoot(MpsPaths paths, List<MpsShare> shares) {
        try {
            for (MpsShare share : shares) {
                Files.createDirectories(paths.pipe(share.resource()));
                Files.createDirectories(paths.log(share.resource()));
            }
        } catch (IOException e) {
            throw new MpsStartException("the MPS root " + paths.root() + " is not writable (" + MpsDaemon.describe(e)
                    + "); the MPS control daemons need it read-write (MPS_ROOT on the host, mounted at "
                    + MpsSettings.DEFAULT_ROOT + ")");
        }
    }

    private void removeReady(MpsPaths paths) {
        try {
            Files.deleteIfExists(paths.ready());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "Failed to remove .ready file: {0}", MpsDaemon.describe(e));
        }
    }

    private ComputeModes computeModes() {
        if (source == null) {
            source = devices.open();
        }
        return source.computeModes();
    }

    private void closeSource() {
        if (source != null) {
            try {
                source.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing the device source: {0}", e.getMessage());
            }
            source = null;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // one daemon

    private Daemon startDaemon(MpsShare share, ControlProgram program, MpsPaths paths) {
        Daemon daemon = new Daemon(share, paths, program);
        daemon.mps.start();
        return daemon;
    }

    private void scheduleCheck() {
        check = control.after(settings.mps().checkInterval(), () -> {
            check = null;
            checkConfig();
            checkDaemons();
            scheduleCheck();
        });
    }

    /** The config file's contents changed: reload, as SIGHUP does (once per new contents). */
    private void checkConfig() {
        Optional<Path> file = settings.configFile();
        if (file.isEmpty()) {
            return;
        }
        String now = MpsDaemonSettings.hash(file.get());
        if (!now.isEmpty() && !now.equals(settings.configHash()) && !now.equals(configHashAsked)) {
            configHashAsked = now;
            LOG.log(System.Logger.Level.INFO, "{0} changed; restarting the MPS control daemons with it", file.get());
            configChanged.run();
        }
    }

    private void checkDaemons() {
        for (Daemon daemon : daemons) {
            if (daemon.running()) {
                daemon.check();
            }
        }
    }

    private static void cancel(Supervisor.Timer timer) {
        if (timer != null) {
            timer.cancel();
        }
    }

    private void publish() {
        Map<String, Long> running = new LinkedHashMap<>();
        List<String> down = new ArrayList<>();
        for (Daemon daemon : daemons) {
            if (daemon.running()) {
                running.put(daemon.share.resource(), daemon.mps.pid().orElse(-1));
            } else {
                down.add(daemon.watch.problem()
                        .orElse("the MPS control daemon of " + daemon.share.resource() + " is not running"));
            }
        }
        Optional<String> why = Optional.ofNullable(problem).or(() -> down.isEmpty() ? Optional.empty()
                : Optional.of(String.join("; ", down)));
        status = new Status(problem == null && !daemons.isEmpty() && down.isEmpty(), running, why);
    }

    /** One resource's daemon ({@link MpsDaemon}), watched and restarted ({@link WatchedDaemon}). */
    private final class Daemon implements WatchedDaemon.Listener {
        final MpsShare share;
        final MpsPaths paths;
        final MpsDaemon mps;
        final WatchedDaemon watch;

        Daemon(MpsShare share, MpsPaths paths, ControlProgram program) {
            this.share = share;
            this.paths = paths;
            this.mps = new MpsDaemon(share, paths, program, MpsControlDaemon.this::computeModes, Map.of());
            this.watch = new WatchedDaemon(share.resource(), mps, MpsControlDaemon.this::program, retries,
                    control::after, this);
        }

        boolean running() {
            return mps.running();
        }

        String describe() {
            return mps.describe();
        }

        /** Still running and answering? If not: logged once, started again with backoff. */
        void check() {
            watch.check();
        }

        @Override
        public void stopped(String why) {
            removeReady(paths); // the node's daemons are not all there: the plugins withdraw this resource
        }

        @Override
        public void restarted() {
            if (daemons.stream().allMatch(Daemon::running)) {
                try {
                    MpsDaemon.write(paths.ready());
                } catch (MpsStartException e) {
                    LOG.log(System.Logger.Level.ERROR, "{0}", e.getMessage());
                }
            }
        }

        /** Stops it as NVIDIA does, and gives each GPU its mode back. */
        void stop() {
            watch.stopWatching();
            mps.stop();
        }
    }
}
