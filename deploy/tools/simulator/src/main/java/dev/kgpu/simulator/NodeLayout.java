package dev.kgpu.simulator;

import dev.kgpu.nvml.mock.SimulatedDriverRoot;
import dev.kgpu.sim.runtime.SimulatedGpus;
import dev.kgpu.simulator.agents.SimulatorException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.stream.Stream;

/**
 * The simulated node's file system, under one work directory that is wiped at every start:
 *
 * <pre>
 * device-plugins/kubelet.sock        the kubelet's registration socket (plugin sockets next to it)
 * pod-resources/kubelet.sock         the kubelet's PodResources API
 * validations/                       the validator's *-ready files (NVIDIA's /run/nvidia/validations)
 * usr/, lib/firmware/                the driver's libraries (the mock NVML among them), binaries and firmware
 * dev/nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset, nvidia&lt;minor&gt;, nvidia-caps/   fake device nodes
 * proc/driver/                        the driver's version, MIG capabilities and mig-minors
 * sys/bus/pci/devices/&lt;bus id&gt;/     fake sysfs of each GPU: ids, class (discovery's gpu.mode), numa_node, config
 * var/run/cdi/                        the node's CDI specs (the plugin's, with a CDI device-list strategy)
 * machine-type                        the node's product name (discovery's gpu.machine)
 * nvml-events                         MOCK_NVML_EVENTS: append "xid &lt;uuid&gt; &lt;code&gt;" to inject an XID
 * kubeconfig                          for the agents and for kubectl
 * logs/                               one log per agent, simulator.log
 * summary.json, node.json, metrics.txt   what the summary showed, for scripts and tests
 * </pre>
 */
public record NodeLayout(Path root) {

    /** A file that marks a directory as a simulated node's, so a restart may wipe it. */
    static final String MARKER = ".kgpu-simulated-node";
    /** Linux's limit for a Unix socket path ({@code sun_path}), including the terminating NUL. */
    static final int UNIX_PATH_MAX = 108;
    /** The longest socket name a node gets: a mixed-strategy MIG resource's plugin socket. */
    private static final String LONGEST_SOCKET = "nvidia-mig-1c.2g.20gb.me.all.sock";

    public Path devicePlugins() {
        return root.resolve("device-plugins");
    }

    public Path kubeletSocket() {
        return devicePlugins().resolve("kubelet.sock");
    }

    /**
     * The kubelet's plugin-watcher folder ({@code /var/lib/kubelet/plugins_registry}): where a DRA driver puts its
     * registration socket ({@code KUBELET_REGISTRAR_DIRECTORY_PATH}).
     */
    public Path pluginsRegistry() {
        return root.resolve("plugins_registry");
    }

    /**
     * The kubelet's plugins folder ({@code /var/lib/kubelet/plugins}): a DRA driver's socket and checkpoint go to
     * {@code <it>/<driver>} ({@code KUBELET_PLUGINS_DIRECTORY_PATH}).
     */
    public Path kubeletPlugins() {
        return root.resolve("plugins");
    }

    public Path podResourcesSocket() {
        return root.resolve("pod-resources/kubelet.sock");
    }

    public Path validations() {
        return root.resolve("validations");
    }

    /**
     * {@code NVIDIA_DRIVER_ROOT}: the driver's files as they lie on a host ({@link SimulatedDriverRoot}: libraries,
     * firmware, binaries, {@code dev/}, {@code proc/driver/}, {@code sys/bus/pci/devices/}).
     */
    public Path driverRoot() {
        return root;
    }

    /**
     * The node's CDI spec directories as containerd reads them by default, lowest priority first:
     * {@code etc/cdi}, {@code var/run/cdi}.
     */
    public List<Path> cdiSpecDirectories() {
        return List.of(root.resolve("etc/cdi"), cdiSpecDirectory());
    }

    /** {@code /var/run/cdi} of the node, where the device plugin writes its spec ({@code KGPU_CDI_SPEC_DIR}). */
    public Path cdiSpecDirectory() {
        return root.resolve("var/run/cdi");
    }

    /** {@code NVIDIA_DEV_ROOT}: holds {@code dev/}. */
    public Path devRoot() {
        return root;
    }

    public Path sysfs() {
        return root.resolve("sys");
    }

    public Path machineTypeFile() {
        return root.resolve("machine-type");
    }

    public Path eventsFile() {
        return root.resolve("nvml-events");
    }

    public Path kubeconfig() {
        return root.resolve("kubeconfig");
    }

    public Path logs() {
        return root.resolve("logs");
    }

    public Path summaryJson() {
        return root.resolve("summary.json");
    }

    public Path nodeJson() {
        return root.resolve("node.json");
    }

    public Path metricsText() {
        return root.resolve("metrics.txt");
    }

    /**
     * Wipes {@code root} (only when it is empty or a simulated node's) and lays out the node for {@code gpus}.
     *
     * @throws SimulatorException.SetupFailed when the directory is someone else's or too deep for Unix sockets
     */
    public static NodeLayout create(Path root, SimulatedGpus gpus, String machineType) {
        Path absolute = root.toAbsolutePath().normalize();
        int longest = absolute.resolve("device-plugins").resolve(LONGEST_SOCKET).toString().getBytes(StandardCharsets.UTF_8).length;
        if (longest >= UNIX_PATH_MAX) {
            throw new SimulatorException.SetupFailed("--work-dir was '" + absolute + "' but it is too deep for the"
                    + " kubelet's Unix sockets (a socket path there takes " + longest + " bytes, Linux allows "
                    + (UNIX_PATH_MAX - 1) + "); choose a shorter one, e.g. --work-dir=/tmp/kgpu-sim");
        }
        try {
            wipe(absolute);
            NodeLayout layout = new NodeLayout(absolute);
            Files.createDirectories(absolute);
            Files.writeString(absolute.resolve(MARKER), "made by the kgpu simulated node; wiped at its next start\n");
            for (Path dir : new Path[]{layout.devicePlugins(), layout.podResourcesSocket().getParent(),
                    layout.validations(), layout.devRoot().resolve("dev"), layout.logs(), layout.cdiSpecDirectory(),
                    layout.pluginsRegistry(), layout.kubeletPlugins()}) {
                Files.createDirectories(dir);
            }
            SimulatedDriverRoot.write(layout.driverRoot(), gpus.driverVersion(), gpus.driverRootGpus(), gpus.nvmlLibrary());
            writeAtomically(layout.machineTypeFile(), machineType + "\n");
            Files.writeString(layout.eventsFile(), "");
            return layout;
        } catch (IOException | UncheckedIOException e) {
            throw new SimulatorException.SetupFailed("could not lay out the simulated node in " + absolute + ": " + e.getMessage(), e);
        }
    }

    private static void wipe(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        if (!Files.isDirectory(root)) {
            throw new SimulatorException.SetupFailed("--work-dir was '" + root + "' but it is a file, not a directory");
        }
        boolean empty;
        try (Stream<Path> entries = Files.list(root)) {
            empty = entries.findAny().isEmpty();
        }
        Path kubelet = root.resolve("device-plugins/kubelet.sock");
        if (Files.exists(kubelet) && accepts(kubelet)) {
            throw new SimulatorException.SetupFailed("--work-dir was '" + root + "' but another simulated node is"
                    + " running there (" + kubelet + " answers); stop it first, or choose another --work-dir");
        }
        if (!empty && !Files.exists(root.resolve(MARKER))) {
            throw new SimulatorException.SetupFailed("--work-dir was '" + root + "' but it holds files that no simulated"
                    + " node made (no " + MARKER + "), so it is not wiped; choose an empty or new directory");
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException failure) throws IOException {
                if (failure != null) {
                    throw failure;
                }
                if (!dir.equals(root)) {
                    Files.delete(dir);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static boolean accepts(Path socket) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return channel.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return false;
        }
    }

    /** Writes {@code text} through a temporary file and a rename, so a reader never sees half of it. */
    public static void writeAtomically(Path file, String text) {
        try {
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, text, StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    /** Removes sockets left in the node's socket folders (a killed agent leaves its own behind). */
    public void removeSockets() {
        for (Path dir : new Path[]{devicePlugins(), podResourcesSocket().getParent()}) {
            try (Stream<Path> entries = Files.list(dir)) {
                for (Path entry : entries.toList()) {
                    if (entry.getFileName().toString().endsWith(".sock")) {
                        Files.deleteIfExists(entry);
                    }
                }
            } catch (IOException e) {
                // best effort at shutdown
            }
        }
    }
}
