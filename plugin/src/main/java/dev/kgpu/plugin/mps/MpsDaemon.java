package dev.kgpu.plugin.mps;

import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceSourceException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One MPS control daemon and the GPUs it holds, in its folder {@code <root>/<name>} ({@link MpsPaths}): started as
 * NVIDIA's {@code daemon.go} starts one, with the compute mode set through NVML, and stopped so that each GPU gets its
 * mode back. The device plugin's daemons ({@link MpsControlDaemon}, one per MPS-shared resource, supervised and
 * restarted there) and the DRA driver's (one per claim that asks for {@code MPS}) are both this.
 *
 * <p>Starting ({@link #start}):
 * <ol>
 *   <li>each GPU's compute mode is noted ({@link MpsPaths#computeModes}; one an earlier run left there is taken as the
 *       GPU's own) and set to {@code EXCLUSIVE_PROCESS}; a GPU in {@code PROHIBITED} mode cannot be shared;</li>
 *   <li>a daemon an earlier run left answering on the pipe folder is stopped;</li>
 *   <li>{@code nvidia-cuda-mps-control -d} with {@code CUDA_MPS_PIPE_DIRECTORY=<root>/<name>/pipe},
 *       {@code CUDA_MPS_LOG_DIRECTORY=<root>/<name>/log} and the extra environment given (a claim's daemon gets
 *       {@code CUDA_VISIBLE_DEVICES}, the claim's GPUs);</li>
 *   <li>{@code set_default_device_pinned_mem_limit} for each GPU with a limit, then
 *       {@code set_default_active_thread_percentage} when a percentage is set; {@code <root>/<name>/.started}.</li>
 * </ol>
 * What fails is undone (the daemon quit, the modes given back) and thrown as {@link MpsStartException} (or
 * {@link DeviceSourceException} when NVML cannot be read).
 *
 * <p>Thread-safety: not thread-safe; its owner confines it (the supervisor's thread, the claim preparer's lock).
 */
public final class MpsDaemon {

    private static final System.Logger LOG = System.getLogger(MpsDaemon.class.getName());

    private final MpsShare share;
    private final MpsPaths paths;
    private final Path pipe;
    private final Path log;
    private final Supplier<ComputeModes> modes;
    private final Map<String, String> environment;
    private ControlProgram program;
    /** Each GPU's compute mode before this daemon set it, by UUID, in index order. */
    private final Map<String, ComputeModes.Mode> originalModes = new LinkedHashMap<>();
    private OptionalLong pid = OptionalLong.empty();
    private boolean launched;
    private boolean running;

    /**
     * @param share       the daemon's name ({@link MpsShare#resource()}, its folder under the root), GPUs and limits
     * @param modes       the GPUs' compute modes (NVML), asked for at each use
     * @param environment what the daemon gets besides its two folders, e.g. {@code CUDA_VISIBLE_DEVICES}; with
     *                    {@code CUDA_VISIBLE_DEVICES} the pinned memory commands name each GPU by its place in it
     */
    public MpsDaemon(MpsShare share, MpsPaths paths, ControlProgram program, Supplier<ComputeModes> modes,
                     Map<String, String> environment) {
        this.share = Objects.requireNonNull(share, "share");
        this.paths = Objects.requireNonNull(paths, "paths");
        this.program = Objects.requireNonNull(program, "program");
        this.modes = Objects.requireNonNull(modes, "modes");
        this.environment = Map.copyOf(environment);
        this.pipe = paths.pipe(share.resource());
        this.log = paths.log(share.resource());
    }

    public MpsShare share() {
        return share;
    }

    /** {@code CUDA_MPS_PIPE_DIRECTORY}: where its clients reach it. */
    public Path pipe() {
        return pipe;
    }

    public Path log() {
        return log;
    }

    public OptionalLong pid() {
        return pid;
    }

    /** Started, and not found dead since. */
    public boolean running() {
        return running;
    }

    /**
     * Its folders, compute modes noted and set, the daemon launched with its limits; undone when a step fails. Refused
     * before anything is done when another MPS daemon holds one of its GPUs ({@link #refuseHeldGpus}).
     */
    public void start() {
        refuseHeldGpus();
        try {
            Files.createDirectories(pipe);
            Files.createDirectories(log);
        } catch (IOException e) {
            throw new MpsStartException("the MPS root " + paths.root() + " is not writable (" + describe(e)
                    + "); the MPS control daemons need it read-write");
        }
        try {
            noteComputeModes();
            stopLeftover();
            setExclusive();
            launch();
        } catch (MpsStartException | DeviceSourceException e) {
            stop();
            throw e;
        }
    }

    /** {@link #start()} with {@code newProgram}, for a start tried again later. */
    public void start(ControlProgram newProgram) {
        program = Objects.requireNonNull(newProgram, "newProgram");
        start();
    }

    /** Whether a daemon answers on its pipe folder now (one a run before this one left, say). */
    public boolean answers() {
        return Files.exists(pipe.resolve(MpsPaths.CONTROL_SOCKET))
                && program.send(pipe, log, MpsControlDaemon.HEALTH_COMMAND).succeeded();
    }

    public String describe() {
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
        ComputeModes now = modes.get();
        for (MpsShare.GpuShare gpu : share.gpus()) {
            ComputeModes.Mode mode = left.get(gpu.uuid());
            if (mode == null) {
                try {
                    mode = now.get(gpu.uuid());
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

    /**
     * One GPU serves one MPS daemon: when another daemon holds one of this one's GPUs (its {@code .compute-modes} lists
     * it, {@link MpsPaths#holding}), e.g. a claim's daemon the DRA driver started, or the device plugin's, this one does
     * not start, rather than take the GPU from under that daemon's clients. One line names the GPU and the holder.
     */
    void refuseHeldGpus() {
        for (MpsShare.GpuShare gpu : share.gpus()) {
            Optional<MpsPaths.Holder> holder = paths.holding(gpu.uuid()).filter(h -> !h.name().equals(share.resource()));
            if (holder.isPresent()) {
                throw new MpsStartException("GPU " + gpu.index() + " (" + gpu.uuid() + ") of " + share.resource()
                        + " is held by the MPS control daemon of " + holder.get().describe() + " ("
                        + paths.computeModes(holder.get().name()) + " lists it); one GPU serves one MPS daemon, so the"
                        + " daemon of " + share.resource() + " starts once that one has given the GPU back");
            }
        }
    }

    /** A daemon an earlier run left answering on this pipe folder is stopped, so that this one can start. */
    void stopLeftover() {
        OptionalLong leftover = DaemonProcess.read(pipe.resolve(MpsPaths.PID_FILE));
        boolean answering = answers();
        if (answering) {
            program.send(pipe, log, "quit");
        }
        if (leftover.isPresent() && DaemonProcess.running(leftover.getAsLong())
                && !DaemonProcess.awaitEnd(leftover.getAsLong(), MpsControlDaemon.STOP_WAIT)) {
            DaemonProcess.kill(leftover.getAsLong(), MpsControlDaemon.STOP_WAIT);
        }
        if (answering) {
            LOG.log(System.Logger.Level.INFO, "stopped the MPS control daemon an earlier run left on {0}{1}", pipe,
                    leftover.isPresent() ? " (pid " + leftover.getAsLong() + ")" : "");
        }
    }

    void setExclusive() {
        ComputeModes now = modes.get();
        for (MpsShare.GpuShare gpu : share.gpus()) {
            if (originalModes.get(gpu.uuid()) == ComputeModes.Mode.EXCLUSIVE_PROCESS) {
                continue;
            }
            try {
                now.set(gpu.uuid(), ComputeModes.Mode.EXCLUSIVE_PROCESS);
            } catch (DeviceSourceException e) {
                throw new MpsStartException("could not set GPU " + gpu.index() + " (" + gpu.uuid() + ") of "
                        + share.resource() + " to compute mode EXCLUSIVE_PROCESS for MPS: " + e.getMessage());
            }
        }
    }

    /** {@code -d}, the limits, {@code .started}. */
    void launch() {
        ControlProgram.Result started = program.startDaemon(pipe, log, environment);
        launched = true;
        if (!started.succeeded()) {
            throw new MpsStartException(program + " -d for " + share.resource() + " (CUDA_MPS_PIPE_DIRECTORY=" + pipe
                    + ") failed: " + started.describe());
        }
        pid = DaemonProcess.read(pipe.resolve(MpsPaths.PID_FILE));
        boolean visible = environment.containsKey("CUDA_VISIBLE_DEVICES");
        for (int i = 0; i < share.gpus().size(); i++) {
            MpsShare.GpuShare gpu = share.gpus().get(i);
            if (gpu.pinnedMemoryMiB() > 0) {
                send(gpu.pinnedMemoryCommand(visible ? i : gpu.index()));
            }
        }
        if (share.threadPercentage() > 0) {
            send(share.threadPercentageCommand());
        }
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

    /**
     * Why the daemon is not there any more (its process ended, or it does not answer
     * {@value MpsControlDaemon#HEALTH_COMMAND}); empty when it is. A dead one counts as not running from then on and
     * has its {@code .started} removed.
     */
    public Optional<String> check() {
        Optional<String> dead = pid.isPresent() && !DaemonProcess.running(pid.getAsLong())
                ? Optional.of("its process " + pid.getAsLong() + " ended") : Optional.empty();
        if (dead.isEmpty()) {
            ControlProgram.Result answer = program.send(pipe, log, MpsControlDaemon.HEALTH_COMMAND);
            if (!answer.succeeded()) {
                dead = Optional.of(MpsControlDaemon.HEALTH_COMMAND + " got " + answer.describe());
            }
        }
        if (dead.isPresent()) {
            running = false;
            delete(paths.started(share.resource()));
        }
        return dead;
    }

    /**
     * Starts the daemon again with {@code newProgram} (the process killed first if it still runs), keeping the modes
     * noted at the first start; on failure the daemon is quit and the exception thrown.
     */
    public void restart(ControlProgram newProgram) {
        try {
            program = Objects.requireNonNull(newProgram, "newProgram");
            if (pid.isPresent() && DaemonProcess.running(pid.getAsLong())) {
                DaemonProcess.kill(pid.getAsLong(), MpsControlDaemon.STOP_WAIT);
            }
            pid = OptionalLong.empty();
            refuseHeldGpus();
            stopLeftover();
            setExclusive();
            launch();
        } catch (MpsStartException | DeviceSourceException e) {
            quit();
            throw e;
        }
    }

    /**
     * Takes over what a run before this one left for the same share: the modes it noted (given back when this one
     * stops) and, when its daemon still answers, the daemon with its pid. False when none answers.
     */
    public boolean adopt() {
        originalModes.clear();
        originalModes.putAll(readComputeModes());
        if (!answers()) {
            return false;
        }
        pid = DaemonProcess.read(pipe.resolve(MpsPaths.PID_FILE));
        launched = true;
        running = true;
        return true;
    }

    /** Ends the daemon: {@code quit}, then SIGKILL if it has not ended in time; whether one had been started. */
    boolean quit() {
        boolean had = launched;
        if (launched) {
            program.send(pipe, log, "quit");
            launched = false;
        }
        if (pid.isPresent() && DaemonProcess.running(pid.getAsLong())
                && !DaemonProcess.awaitEnd(pid.getAsLong(), MpsControlDaemon.STOP_WAIT)) {
            LOG.log(System.Logger.Level.WARNING, "the MPS control daemon of {0} (pid {1}) did not end after quit;"
                    + " killing it", share.resource(), Long.toString(pid.getAsLong()));
            DaemonProcess.kill(pid.getAsLong(), MpsControlDaemon.STOP_WAIT);
        }
        running = false;
        return had;
    }

    /** Stops it as NVIDIA does, and gives each GPU its mode back; whether every GPU got it back. */
    public boolean stop() {
        if (quit()) {
            LOG.log(System.Logger.Level.INFO, "Stopped MPS control daemon of {0}", share.resource());
        }
        boolean restored = restoreComputeModes();
        if (restored) {
            delete(paths.computeModes(share.resource()));
        }
        delete(paths.started(share.resource()));
        deleteTree(log);
        return restored;
    }

    /**
     * {@link #stop}, then its whole folder removed (pipe, log and the rest), unless a GPU could not get its mode back:
     * then {@code .compute-modes} stays, so that the GPU counts as this daemon's until a later removal gives it back.
     */
    public void remove() {
        if (stop()) {
            deleteTree(paths.resource(share.resource()));
        } else {
            deleteTree(pipe);
        }
    }

    private boolean restoreComputeModes() {
        if (originalModes.isEmpty()) {
            return true;
        }
        boolean all = true;
        ComputeModes now;
        try {
            now = modes.get();
        } catch (DeviceSourceException e) {
            LOG.log(System.Logger.Level.ERROR, "could not give the GPUs of {0} back their compute modes {1}: {2}",
                    share.resource(), originalModes, e.getMessage());
            return false;
        }
        for (Map.Entry<String, ComputeModes.Mode> entry : originalModes.entrySet()) {
            try {
                now.set(entry.getKey(), entry.getValue());
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
        Map<String, ComputeModes.Mode> read = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return read;
        }
        try {
            for (String line : Files.readAllLines(file)) {
                String[] words = line.strip().split("\\s+");
                if (words.length == 2) {
                    read.put(words[0], ComputeModes.Mode.valueOf(words[1]));
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "{0} cannot be read ({1}); taking the compute modes as they are",
                    file, e.getMessage());
            return new LinkedHashMap<>();
        }
        LOG.log(System.Logger.Level.INFO, "{0} was left by a run that did not stop: taking its compute modes {1} as"
                + " the GPUs'' own", file, read);
        return read;
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
            throw new MpsStartException("could not write " + file + " (" + describe(e) + ")");
        }
    }

    static String describe(IOException e) {
        String type = e.getClass().getSimpleName().replace("Exception", "");
        return e.getMessage() == null ? type : type + ": " + e.getMessage();
    }

    static void write(Path file) {
        try {
            Files.write(file, new byte[0]);
        } catch (IOException e) {
            throw new MpsStartException("could not write " + file + " (" + describe(e) + ")");
        }
    }

    static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not remove {0}: {1}", file, describe(e));
        }
    }

    /** Removes {@code folder} and everything in it; what cannot be removed is logged. */
    public static void deleteTree(Path folder) {
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
