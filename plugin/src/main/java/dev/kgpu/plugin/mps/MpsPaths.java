package dev.kgpu.plugin.mps;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * NVIDIA's layout of the MPS root ({@code cmd/mps-control-daemon/mps/root.go}, v0.17): one folder per MPS-shared
 * resource, named by the resource ({@code nvidia.com/gpu} gives {@code <root>/nvidia.com/gpu}), holding the daemon's
 * {@code pipe} and {@code log} folders and its {@code .started} file; {@code .ready} for the whole node once every
 * daemon started; {@code shm}, the shared memory the clients get as {@code /dev/shm}. NVIDIA's plugin and kgpu's read
 * the same files, so either daemon serves either plugin. The DRA driver's daemon of a claim lives in
 * {@code <root>/claims/<claim UID>}, laid out the same way. Immutable; {@link #resourceHolding} reads the folder.
 *
 * @param root the MPS root as this process sees it
 */
public record MpsPaths(Path root) {

    /** The daemon's control socket in its pipe folder. */
    public static final String CONTROL_SOCKET = "control";
    /** The daemon's pid file in its pipe folder (written by {@code nvidia-cuda-mps-control -d}). */
    public static final String PID_FILE = "nvidia-cuda-mps-control.pid";
    /** Each GPU's compute mode before the daemon set it, in its resource's folder. */
    static final String COMPUTE_MODES = ".compute-modes";
    /** The daemon's log in its log folder. */
    public static final String CONTROL_LOG = "control.log";

    public MpsPaths {
        Objects.requireNonNull(root, "root");
    }

    /** {@code <root>/.ready}: every daemon of the node started. */
    public Path ready() {
        return root.resolve(".ready");
    }

    /** {@code <root>/shm}: the clients' shared memory. */
    public Path shm() {
        return root.resolve("shm");
    }

    /** {@code <root>/<resource>}. */
    public Path resource(String resource) {
        return root.resolve(resource);
    }

    /** {@code <root>/<resource>/pipe}: the daemon's {@code CUDA_MPS_PIPE_DIRECTORY}. */
    public Path pipe(String resource) {
        return resource(resource).resolve("pipe");
    }

    /** {@code <root>/<resource>/log}: the daemon's {@code CUDA_MPS_LOG_DIRECTORY}. */
    public Path log(String resource) {
        return resource(resource).resolve("log");
    }

    /** {@code <root>/<resource>/.started}: the daemon started and its limits are set. */
    public Path started(String resource) {
        return resource(resource).resolve(".started");
    }

    /**
     * {@code <root>/<resource>/.compute-modes} (kgpu's): each GPU's compute mode before the daemon set it, kept until
     * they are given back, so that a daemon agent that ended without stopping gives the modes back on its next start.
     */
    public Path computeModes(String resource) {
        return resource(resource).resolve(COMPUTE_MODES);
    }

    /**
     * The MPS-shared resource whose daemon holds GPU {@code gpuUuid} in its compute mode now: the one whose
     * {@code .compute-modes} lists the GPU (the daemon writes it before it sets {@code EXCLUSIVE_PROCESS} and removes it
     * once it gave the modes back). Empty when no daemon holds it, or there is no MPS root in this container. A file
     * that cannot be read counts as holding nothing.
     */
    public Optional<String> resourceHolding(String gpuUuid) {
        return holding(gpuUuid).map(Holder::name);
    }

    /**
     * The daemon that holds GPU {@code gpuUuid} now, as {@link #resourceHolding} finds it: a resource's (the device
     * plugin's) or a claim's (the DRA driver's, {@code claims/<claim UID>}). The one reading of {@code .compute-modes}
     * both kinds of daemon use to leave each other's GPUs alone.
     */
    public Optional<Holder> holding(String gpuUuid) {
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        // a resource folder is its name: nvidia.com/gpu is <root>/nvidia.com/gpu
        try (Stream<Path> files = Files.find(root, 3, (file, attributes) -> attributes.isRegularFile()
                && file.getFileName().toString().equals(COMPUTE_MODES))) {
            return files.filter(file -> lists(file, gpuUuid)).findFirst()
                    .map(file -> new Holder(root.relativize(file.getParent()).toString()));
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /**
     * A daemon's folder under the root: a resource's ({@code nvidia.com/gpu}) or a claim's ({@code claims/<UID>}).
     *
     * @param name the folder, relative to the root
     */
    public record Holder(String name) {
        /** The folder of claims' daemons under the root. */
        public static final String CLAIMS = "claims";

        public Holder {
            Objects.requireNonNull(name, "name");
        }

        /** The claim's UID when it is a claim's daemon. */
        public Optional<String> claimUid() {
            return name.startsWith(CLAIMS + "/") ? Optional.of(name.substring(CLAIMS.length() + 1)) : Optional.empty();
        }

        /** {@code claim <UID>}, or the resource's name. */
        public String describe() {
            return claimUid().map(uid -> "claim " + uid).orElse(name);
        }
    }

    private static boolean lists(Path computeModes, String gpuUuid) {
        try (Stream<String> lines = Files.lines(computeModes)) {
            return lines.map(String::strip).anyMatch(line -> line.startsWith(gpuUuid + " "));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }
}
