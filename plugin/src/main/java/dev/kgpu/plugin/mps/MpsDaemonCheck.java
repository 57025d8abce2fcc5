package dev.kgpu.plugin.mps;

import java.nio.file.Files;
import java.util.Objects;
import java.util.Optional;

/**
 * The device plugin's question before it advertises an MPS-shared resource, and while it does: does the resource's
 * control daemon run? Yes when {@code <root>/.ready} exists (every daemon of the node started, as NVIDIA's and kgpu's
 * daemon agents write it) and the daemon answers {@code get_default_active_thread_percentage} on
 * {@code <root>/<resource>/pipe} (the check NVIDIA's plugin makes, so kgpu's plugin accepts the daemons NVIDIA's
 * accepts). The client is the driver's {@code nvidia-cuda-mps-control} in the plugin's own container. Immutable and
 * thread-safe; each check runs the client once (at most {@link ControlProgram#TIMEOUT}).
 */
public final class MpsDaemonCheck {

    private final MpsSettings settings;
    private final Optional<String> path;

    /** @param path the process's {@code PATH}, where the control program is looked for */
    public MpsDaemonCheck(MpsSettings settings, Optional<String> path) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.path = Objects.requireNonNull(path, "path");
    }

    public MpsSettings settings() {
        return settings;
    }

    /** What the plugin waits for, in words: {@code <root>/.ready and an answer on <root>/nvidia.com/gpu/pipe}. */
    public String waitsFor(String resource) {
        MpsPaths paths = settings.paths();
        return paths.ready() + " and an answer to " + MpsControlDaemon.HEALTH_COMMAND + " on " + paths.pipe(resource);
    }

    /** Empty when the daemon of {@code resource} runs; otherwise why it does not, in words. */
    public Optional<String> notRunning(String resource) {
        MpsPaths paths = settings.paths();
        if (!Files.exists(paths.ready())) {
            return Optional.of(paths.ready() + " does not exist");
        }
        Optional<java.nio.file.Path> program = ControlProgram.locate(settings.control(), path);
        if (program.isEmpty()) {
            return Optional.of(settings.control() + " was not found (" + ControlProgram.searched(settings.control(), path)
                    + "); the plugin needs it to ask the daemon (NVIDIA_DRIVER_CAPABILITIES=compute,utility)");
        }
        ControlProgram.Result answer = new ControlProgram(program.get(), ControlProgram.TIMEOUT)
                .send(paths.pipe(resource), paths.log(resource), MpsControlDaemon.HEALTH_COMMAND);
        return answer.succeeded() ? Optional.empty()
                : Optional.of(MpsControlDaemon.HEALTH_COMMAND + " on " + paths.pipe(resource) + " got " + answer.describe());
    }
}
