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
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

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
            write(paths.ready());
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
            throw new MpsStartException("the MPS root " + paths.root() + " is not writable (" + describe(e)
                    + "); the MPS control daemons need it read-write (MPS_ROOT on the host, mounted at "
                    + MpsSettings.DEFAULT_ROOT + ")");
        }
    }

    private void removeReady(MpsPaths paths) {
        try {
            Files.deleteIfExists(paths.ready());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "Failed to remove .ready file: {0}", describe(e));
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
        try {
            daemon.noteComputeModes();
            daemon.stopLeftover();
            daemon.setExclusive();
            daemon.launch();
            return daemon;
        } catch (MpsStartException | DeviceSourceException e) {
            daemon.stop();
            throw e;
        }
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
            if (daemon.running) {
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
            if (daemon.running) {
                running.put(daemon.share.resource(), daemon.pid.orElse(-1));
            } else {
                down.add("the MPS control daemon of " + daemon.share.resource() + " is not running");
            }
        }
        Optional<String> why = Optional.ofNullable(problem).or(() -> down.isEmpty() ? Optional.empty()
                : Optional.of(String.join("; ", down)));
        status = new Status(problem == null && !daemons.isEmpty() && down.isEmpty(), running, why);
    }

    private static String describe(IOException e) {
        String type = e.getClass().getSimpleName().replace("Exception", "");
        return e.getMessage() == null ? type : type + ": " + e.getMessage();
    }

    private static void write(Path file) {
        try {
            Files.write(file, new byte[0]);
        } catch (IOException e) {
            throw new MpsStartException("could not write " + file + " (" + describe(e) + ")");
        }
    }

    /** One resource's daemon: its GPUs' modes before MPS, its process, and its restarts. */
    private final class Daemon {
        final MpsShare share;
        final MpsPaths paths;
        final Path pipe;
        final Path log;
        ControlProgram program;
        /** Each GPU's compute mode before this daemon set it, by UUID, in index order. */
        final Map<String, ComputeModes.Mode> originalModes = new LinkedHashMap<>();
        OptionalLong pid = OptionalLong.empty();
        boolean launched;
        boolean running;
        final Backoff restarts = new Backoff(retries);
        Supervisor.Timer restart;
        final OncePerCause restartFailure;

        Daemon(MpsShare share, MpsPaths paths, ControlProgram program) {
            this.share = share;
            this.paths = paths;
            this.pipe = paths.pipe(share.resource());
            this.log = paths.log(share.resource());
            this.program = program;
            this.restartFailure = new OncePerCause(LOG, "the MPS control daemon of " + share.resource() + " runs again");
        }

        String describe() {
            MpsShare.GpuShare first = share.gpus().getFirst();
            return share.resource() + " (pid " + (pid.isPresent() ? Long.toString(pid.getAsLong()) : "unknown") + "; "
                    + share.gpus().size() + " GPUs, " + first.replicas() + " replicas each: active thread percentage "
                    + share.threadPercentage() + ", pinned memory " + first.pinnedMemoryMiB() + "M)";
        }

        /**
         * Notes each GPU's compute mode before MPS: from {@code .compute-modes} when an earlier run left it (it ended
         * without giving them back), else as NVML reports it now. A GPU in {@code PROHIBITED} mode lets no process
         * use it, so MPS cannot share it.
         */
        void noteComputeModes() {
            Map<String, ComputeModes.Mode> left = readComputeModes();
            ComputeModes modes = computeModes();
            for (MpsShare.GpuShare gpu : share.gpus()) {
                ComputeModes.Mode mode = left.get(gpu.uuid());
                if (mode == null) {
                    try {
                        mode = modes.get(gpu.uuid());
                    } catch (DeviceSourceException e) {
                        throw new MpsStartException("MPS cannot share GPU " + gpu.index() + " (" + gpu.uuid() + ") of "
                                + share.resource() + ": its compute mode cannot be read (" + e.getMessage() + ")");
                    }
                }
                if (mode == ComputeModes.Mode.PROHIBITED) {
                    throw new MpsStartException("GPU " + gpu.index() + " (" + gpu.uuid() + ") of " + share.resource()
                            + " has compute mode PROHIBITED, which lets no process use it, so MPS cannot share it;"
                            + " give it DEFAULT (nvidia-smi -i " + gpu.index() + " -c DEFAULT)");
                }
                originalModes.put(gpu.uuid(), mode);
            }
            if (left.isEmpty()) {
                writeComputeModes();
            }
        }

        /** A daemon an earlier run left answering on this pipe folder is stopped, so that this one can start. */
        void stopLeftover() {
            OptionalLong leftover = DaemonProcess.read(pipe.resolve(MpsPaths.PID_FILE));
            boolean answering = Files.exists(pipe.resolve(MpsPaths.CONTROL_SOCKET))
                    && program.send(pipe, log, HEALTH_COMMAND).succeeded();
            if (answering) {
                program.send(pipe, log, "quit");
            }
            if (leftover.isPresent() && DaemonProcess.running(leftover.getAsLong())
                    && !DaemonProcess.awaitEnd(leftover.getAsLong(), STOP_WAIT)) {
                DaemonProcess.kill(leftover.getAsLong(), STOP_WAIT);
            }
            if (answering) {
                LOG.log(System.Logger.Level.INFO, "stopped the MPS control daemon an earlier run left on {0}{1}", pipe,
                        leftover.isPresent() ? " (pid " + leftover.getAsLong() + ")" : "");
            }
        }

        void setExclusive() {
            ComputeModes modes = computeModes();
            for (MpsShare.GpuShare gpu : share.gpus()) {
                if (originalModes.get(gpu.uuid()) == ComputeModes.Mode.EXCLUSIVE_PROCESS) {
                    continue;
                }
                try {
                    modes.set(gpu.uuid(), ComputeModes.Mode.EXCLUSIVE_PROCESS);
                } catch (DeviceSourceException e) {
                    throw new MpsStartException("could not set GPU " + gpu.index() + " (" + gpu.uuid() + ") of "
                            + share.resource() + " to compute mode EXCLUSIVE_PROCESS for MPS: " + e.getMessage());
                }
            }
        }

        /** {@code -d}, the limits, {@code .started}. */
        void launch() {
            ControlProgram.Result started = program.startDaemon(pipe, log);
            launched = true;
            if (!started.succeeded()) {
                throw new MpsStartException(program + " -d for " + share.resource() + " (CUDA_MPS_PIPE_DIRECTORY=" + pipe
                        + ") failed: " + started.describe());
            }
            pid = DaemonProcess.read(pipe.resolve(MpsPaths.PID_FILE));
            for (MpsShare.GpuShare gpu : share.gpus()) {
                if (gpu.pinnedMemoryMiB() > 0) {
                    send(gpu.pinnedMemoryCommand());
                }
            }
            send(share.threadPercentageCommand());
            write(paths.started(share.resource()));
            running = true;
        }

        private void send(String command) {
            ControlProgram.Result answer = program.send(pipe, log, command);
            if (!answer.succeeded()) {
                throw new MpsStartException("the MPS control daemon of " + share.resource() + " did not take '" + command
                        + "': " + answer.describe());
            }
        }

        /** Still running and answering? If not: logged once, started again with backoff. */
        void check() {
            Optional<String> dead = pid.isPresent() && !DaemonProcess.running(pid.getAsLong())
                    ? Optional.of("its process " + pid.getAsLong() + " ended") : Optional.empty();
            if (dead.isEmpty()) {
                ControlProgram.Result answer = program.send(pipe, log, HEALTH_COMMAND);
                if (!answer.succeeded()) {
                    dead = Optional.of(HEALTH_COMMAND + " got " + answer.describe());
                }
            }
            if (dead.isEmpty()) {
                return;
            }
            running = false;
            removeReady(paths); // the node's daemons are not all there: the plugins withdraw this resource
            delete(paths.started(share.resource()));
            LOG.log(System.Logger.Level.WARNING, "the MPS control daemon of {0} stopped ({1}); starting it again with backoff",
                    share.resource(), dead.get());
            scheduleRestart();
        }

        void scheduleRestart() {
            cancel(restart);
            restart = control.after(restarts.next(), () -> {
                restart = null;
                restartNow();
            });
        }

        void restartNow() {
            try {
                program = program();
                if (pid.isPresent() && DaemonProcess.running(pid.getAsLong())) {
                    DaemonProcess.kill(pid.getAsLong(), STOP_WAIT);
                }
                pid = OptionalLong.empty();
                stopLeftover();
                setExclusive();
                launch();
                if (daemons.stream().allMatch(d -> d.running)) {
                    write(paths.ready());
                }
            } catch (MpsStartException | DeviceSourceException e) {
                quit();
                restartFailure.occurred(System.Logger.Level.ERROR, e.getMessage(),
                        "the MPS control daemon of {0} cannot start again: {1} (retrying with backoff)",
                        share.resource(), e.getMessage());
                scheduleRestart();
                return;
            }
            restarts.reset();
            if (!restartFailure.cleared()) {
                LOG.log(System.Logger.Level.INFO, "the MPS control daemon of {0} runs again (pid {1})", share.resource(),
                        pid.isPresent() ? Long.toString(pid.getAsLong()) : "unknown");
            }
        }

        /** Ends the daemon: {@code quit}, then SIGKILL if it has not ended in time; whether one had been started. */
        boolean quit() {
            boolean had = launched;
            if (launched) {
                program.send(pipe, log, "quit");
                launched = false;
            }
            if (pid.isPresent() && DaemonProcess.running(pid.getAsLong())
                    && !DaemonProcess.awaitEnd(pid.getAsLong(), STOP_WAIT)) {
                LOG.log(System.Logger.Level.WARNING, "the MPS control daemon of {0} (pid {1}) did not end after quit;"
                        + " killing it", share.resource(), Long.toString(pid.getAsLong()));
                DaemonProcess.kill(pid.getAsLong(), STOP_WAIT);
            }
            running = false;
            return had;
        }

        /** Stops it as NVIDIA does, and gives each GPU its mode back. */
        void stop() {
            cancel(restart);
            restart = null;
            if (quit()) {
                LOG.log(System.Logger.Level.INFO, "Stopped MPS control daemon of {0}", share.resource());
            }
            boolean restored = restoreComputeModes();
            if (restored) {
                delete(paths.computeModes(share.resource()));
            }
            delete(paths.started(share.resource()));
            deleteTree(log);
        }

        private boolean restoreComputeModes() {
            if (originalModes.isEmpty()) {
                return true;
            }
            boolean all = true;
            ComputeModes modes;
            try {
                modes = computeModes();
            } catch (DeviceSourceException e) {
                LOG.log(System.Logger.Level.ERROR, "could not give the GPUs of {0} back their compute modes {1}: {2}",
                        share.resource(), originalModes, e.getMessage());
                return false;
            }
            for (Map.Entry<String, ComputeModes.Mode> entry : originalModes.entrySet()) {
                try {
                    modes.set(entry.getKey(), entry.getValue());
                } catch (DeviceSourceException e) {
                    all = false;
                    LOG.log(System.Logger.Level.ERROR, "could not give {0} back its compute mode {1}: {2}", entry.getKey(),
                            entry.getValue(), e.getMessage());
                }
            }
            return all;
        }

        private Map<String, ComputeModes.Mode> readComputeModes() {
            Path file = paths.computeModes(share.resource());
            Map<String, ComputeModes.Mode> modes = new LinkedHashMap<>();
            if (!Files.exists(file)) {
                return modes;
            }
            try {
                for (String line : Files.readAllLines(file)) {
                    String[] words = line.strip().split("\\s+");
                    if (words.length == 2) {
                        modes.put(words[0], ComputeModes.Mode.valueOf(words[1]));
                    }
                }
            } catch (IOException | IllegalArgumentException e) {
                LOG.log(System.Logger.Level.WARNING, "{0} cannot be read ({1}); taking the compute modes as they are",
                        file, e.getMessage());
                return new LinkedHashMap<>();
            }
            LOG.log(System.Logger.Level.INFO, "{0} was left by a run that did not stop: taking its compute modes {1} as"
                    + " the GPUs'' own", file, modes);
            return modes;
        }

        private void writeComputeModes() {
            Path file = paths.computeModes(share.resource());
            String text = originalModes.entrySet().stream().map(e -> e.getKey() + " " + e.getValue() + "\n")
                    .collect(Collectors.joining());
            try {
                Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
                Files.writeString(temporary, text);
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new MpsStartException("could not write " + file + " (" + MpsControlDaemon.describe(e) + ")");
            }
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not remove {0}: {1}", file, describe(e));
        }
    }

    private static void deleteTree(Path folder) {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(folder)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not remove {0}: {1}", folder, describe(e));
        }
    }
}
