package dev.kgpu.cdi;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The CDI spec NVIDIA's device plugin generates for its kind (nvidia-container-toolkit's {@code pkg/nvcdi} in NVML
 * mode, as the plugin's {@code internal/cdi} drives it), from plain records, so that kgpu's device plugin and a DRA
 * driver share it:
 *
 * <ul>
 *   <li>one device per GPU with MIG off and per MIG device, under each {@link NameStrategy} asked for (the plugin
 *       asks for its {@code deviceIDStrategy}; {@code nvidia-ctk cdi generate} for index and uuid), GPUs in index
 *       order, a GPU's MIG devices in place of it; edits: {@code /dev/nvidia<minor>} and the GPU's DRM nodes, or
 *       for a MIG device the parent's node and its two {@code /dev/nvidia-caps/nvidia-cap<N>} nodes (minors from
 *       {@code /proc/driver/nvidia-caps/mig-minors});</li>
 *   <li>spec-level edits: the control nodes ({@code nvidia-modeset}, {@code nvidia-uvm-tools}, {@code nvidia-uvm},
 *       {@code nvidiactl}) that exist; the driver's libraries ({@code *.so.<version>} in the directory holding
 *       {@code libcuda.so.<version>} (else {@code libnvidia-ml.so.<version>}) and its {@code vdpau/}, plus
 *       {@code libnvidia-nvvm70.so.*}); the IPC sockets; the GSP firmware; the binaries; the hooks
 *       {@code create-symlinks}, {@code enable-cuda-compat}, {@code update-ldcache},
 *       {@code disable-device-node-modification}, {@code update-application-profile}; the environment
 *       {@code NVIDIA_CTK_LIBCUDA_DIR} and {@code NVIDIA_VISIBLE_DEVICES=void};</li>
 *   <li>files are looked up under the driver root as the agent sees it ({@link Options#driverRoot()}, NVIDIA's
 *       {@code --driver-root-ctr-path}) and written with the host's root ({@link Options#targetDriverRoot()},
 *       {@code NVIDIA_DRIVER_ROOT}); container paths are host paths without the root;</li>
 *   <li>a device node that is a character device carries its major, minor, mode, {@code rwm} and group (and that
 *       group as an additional GID unless it is world read-writable); one that is not (a simulated node's regular
 *       files, or a node it may not read) carries only its paths, and the runtime reads the rest, as NVIDIA writes
 *       it;</li>
 *   <li>{@code cdiVersion} is the least the content needs.</li>
 * </ul>
 *
 * <p>Differences from nvcdi, none of which a device-plugin spec on a driver host shows: no {@code ld.so.cache} fallback when the library directories do not hold
 * the driver; no graphics (Vulkan/EGL/GLX) files; binaries are looked for in the standard directories, not on
 * {@code $PATH}; no DRM by-path symlink hook.
 *
 * <p>Stateless; {@link #generate} reads the file system each time. Thread-safe.
 */
public final class NvidiaCdiGenerator {

    /** The kind NVIDIA's device plugin writes for GPUs. */
    public static final String DEVICE_PLUGIN_KIND = "k8s.device-plugin.nvidia.com/gpu";
    /** The hook binary's default path in NVIDIA's device plugin ({@code --nvidia-cdi-hook-path}). */
    public static final String DEFAULT_HOOK_PATH = "/usr/bin/nvidia-ctk";
    /** Every hook the generator can add, by the name {@code --cdi-disable-hooks} takes ({@code all} disables all). */
    public static final List<String> HOOKS = List.of("create-symlinks", "enable-cuda-compat", "update-ldcache",
            "disable-device-node-modification", "update-application-profile");

    static final List<String> MOUNT_OPTIONS = List.of("ro", "nosuid", "nodev", "rbind", "rprivate");
    static final List<String> IPC_MOUNT_OPTIONS = List.of("nosuid", "nodev", "rbind", "rprivate", "noexec");
    /** The library locator's search path under the driver root (nvidia-container-toolkit {@code pkg/lookup/library.go}). */
    static final List<String> LIBRARY_SEARCH_PATHS = List.of("/", "/usr/lib64", "/usr/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu", "/usr/lib/x86_64-linux-gnu/nvidia/current",
            "/usr/lib/aarch64-linux-gnu/nvidia/current", "/lib64", "/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
            "/lib/x86_64-linux-gnu/nvidia/current", "/lib/aarch64-linux-gnu/nvidia/current");
    static final List<String> BINARIES = List.of("nvidia-smi", "nvidia-debugdump", "nvidia-persistenced",
            "nvidia-cuda-mps-control", "nvidia-cuda-mps-server", "nvidia-imex", "nvidia-imex-ctl");
    static final List<String> BINARY_SEARCH_PATHS = List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
            "/usr/bin", "/sbin", "/bin");
    static final List<String> CONTROL_DEVICE_NODES = List.of("/dev/nvidia-modeset", "/dev/nvidia-uvm-tools",
            "/dev/nvidia-uvm", "/dev/nvidiactl");

    private static final int S_IFMT = 0170000;
    private static final int S_IFCHR = 0020000;

    private NvidiaCdiGenerator() {
    }

    /** How devices are named in the spec ({@code pkg/nvcdi/namer.go}). */
    public enum NameStrategy {
        /** {@code 0}, MIG {@code 0:1}. */
        INDEX,
        /** {@code GPU-...}, MIG {@code MIG-...}. */
        UUID,
        /** {@code gpu0}, MIG {@code mig0:1}. */
        TYPE_INDEX;

        String name(Gpu gpu) {
            return switch (this) {
                case INDEX -> Integer.toString(gpu.index());
                case UUID -> gpu.uuid();
                case TYPE_INDEX -> "gpu" + gpu.index();
            };
        }

        String name(Gpu parent, Mig mig) {
            return switch (this) {
                case INDEX -> parent.index() + ":" + mig.index();
                case UUID -> mig.uuid();
                case TYPE_INDEX -> "mig" + parent.index() + ":" + mig.index();
            };
        }
    }

    /**
     * What to generate and where the files are.
     *
     * @param kind             e.g. {@link #DEVICE_PLUGIN_KIND}
     * @param driverRoot       where the driver's files are looked up (the agent's view, NVIDIA's container driver root)
     * @param targetDriverRoot the same files' root on the host, written into host paths ({@code NVIDIA_DRIVER_ROOT})
     * @param devRoot          where {@code dev/} is looked up (the agent's view)
     * @param targetDevRoot    {@code dev/}'s root on the host ({@code NVIDIA_DEV_ROOT})
     * @param procRoot         the root of {@code proc/driver/nvidia-caps/mig-minors} ({@code /} on a node)
     * @param sysRoot          the root of {@code sys/bus/pci/devices} ({@code /} on a node)
     * @param hookPath         the host path of the hook binary ({@code NVIDIA_CDI_HOOK_PATH}/{@code NVIDIA_CTK_PATH})
     * @param nameStrategies   the names each device gets, in this order
     * @param allDevice        also a device {@code all} merging every other (as {@code nvidia-ctk cdi generate})
     * @param disabledHooks    hook names to leave out ({@code all}: every hook)
     */
    public record Options(String kind, Path driverRoot, Path targetDriverRoot, Path devRoot, Path targetDevRoot,
                          Path procRoot, Path sysRoot, String hookPath, List<NameStrategy> nameStrategies,
                          boolean allDevice, Set<String> disabledHooks) {
        public Options {
            CdiNames.requireKind(kind);
            Objects.requireNonNull(driverRoot, "driverRoot");
            Objects.requireNonNull(targetDriverRoot, "targetDriverRoot");
            Objects.requireNonNull(devRoot, "devRoot");
            Objects.requireNonNull(targetDevRoot, "targetDevRoot");
            Objects.requireNonNull(procRoot, "procRoot");
            Objects.requireNonNull(sysRoot, "sysRoot");
            CdiNames.requireAbsolute("hookPath", hookPath);
            nameStrategies = List.copyOf(nameStrategies);
            if (nameStrategies.isEmpty()) {
                throw new CdiException("nameStrategies was '[]' but it must name at least one of " + List.of(NameStrategy.values()));
            }
            disabledHooks = Set.copyOf(disabledHooks);
            for (String hook : disabledHooks) {
                if (!hook.equals("all") && !HOOKS.contains(hook)) {
                    throw new CdiException("disabledHooks was '" + hook + "' but it must be 'all' or one of " + HOOKS);
                }
            }
        }

        /**
         * NVIDIA's device plugin's defaults for a host driver at {@code /} seen by the agent at {@code driverRoot}:
         * its kind, hook path {@code /usr/bin/nvidia-ctk}, one name strategy, no {@code all} device.
         */
        public static Options devicePlugin(Path driverRoot, Path targetDriverRoot, NameStrategy strategy) {
            Path devRoot = Files.isDirectory(driverRoot.resolve("dev")) ? driverRoot : Path.of("/");
            Path targetDevRoot = devRoot.equals(driverRoot) ? targetDriverRoot : devRoot;
            return new Options(DEVICE_PLUGIN_KIND, driverRoot, targetDriverRoot, devRoot, targetDevRoot, Path.of("/"),
                    Path.of("/"), DEFAULT_HOOK_PATH, List.of(strategy), false, Set.of());
        }

        public Options withKind(String newKind) {
            return new Options(newKind, driverRoot, targetDriverRoot, devRoot, targetDevRoot, procRoot, sysRoot, hookPath,
                    nameStrategies, allDevice, disabledHooks);
        }

        public Options withHookPath(String newHookPath) {
            return new Options(kind, driverRoot, targetDriverRoot, devRoot, targetDevRoot, procRoot, sysRoot, newHookPath,
                    nameStrategies, allDevice, disabledHooks);
        }

        public Options withSystemRoots(Path newProcRoot, Path newSysRoot) {
            return new Options(kind, driverRoot, targetDriverRoot, devRoot, targetDevRoot, newProcRoot, newSysRoot, hookPath,
                    nameStrategies, allDevice, disabledHooks);
        }

        public Options withNames(List<NameStrategy> strategies, boolean withAllDevice) {
            return new Options(kind, driverRoot, targetDriverRoot, devRoot, targetDevRoot, procRoot, sysRoot, hookPath,
                    strategies, withAllDevice, disabledHooks);
        }

        public Options withDisabledHooks(Set<String> hooks) {
            return new Options(kind, driverRoot, targetDriverRoot, devRoot, targetDevRoot, procRoot, sysRoot, hookPath,
                    nameStrategies, allDevice, hooks);
        }

        boolean hookEnabled(String hook) {
            return !disabledHooks.contains("all") && !disabledHooks.contains(hook);
        }
    }

    /**
     * A GPU as NVML reports it.
     *
     * @param pciBusId   sysfs form, {@code 0000:07:00.0}
     * @param migEnabled MIG mode on: the GPU is listed through its MIG devices only
     */
    public record Gpu(int index, String uuid, int minor, String pciBusId, boolean migEnabled, List<Mig> migDevices) {
        public Gpu {
            Objects.requireNonNull(uuid, "uuid");
            Objects.requireNonNull(pciBusId, "pciBusId");
            migDevices = List.copyOf(migDevices);
        }
    }

    /** A MIG device: its index under the parent, UUID and instance ids. */
    public record Mig(int index, String uuid, int gpuInstanceId, int computeInstanceId) {
        public Mig {
            Objects.requireNonNull(uuid, "uuid");
        }
    }

    /**
     * The spec for {@code gpus} of a driver at {@code driverVersion}.
     *
     * @throws CdiException when the driver's libraries cannot be found under the driver root, a MIG device has no
     *                      line in {@code mig-minors}, or the result would have no device
     */
    public static CdiSpec generate(Options options, String driverVersion, List<Gpu> gpus) {
        Roots roots = new Roots(options);
        CdiSpec.ContainerEdits common = commonEdits(options, roots, driverVersion);
        MigMinors capMinors = null;
        List<CdiSpec.Device> devices = new ArrayList<>();
        for (Gpu gpu : gpus) {
            if (!gpu.migEnabled()) {
                List<CdiSpec.DeviceNode> nodes = new ArrayList<>();
                nodes.add(roots.deviceNode("/dev/nvidia" + gpu.minor()));
                nodes.addAll(drmNodes(options, roots, gpu));
                addDevice(devices, options, n -> n.name(gpu), simplify(deviceEdits(nodes), common));
                continue;
            }
            for (Mig mig : gpu.migDevices()) {
                Path table = options.procRoot().resolve(MigMinors.FILE);
                if (capMinors == null) {
                    capMinors = MigMinors.read(table);
                }
                List<CdiSpec.DeviceNode> nodes = new ArrayList<>();
                nodes.add(roots.deviceNode("/dev/nvidia" + gpu.minor()));
                Optional<Integer> gi = capMinors.gpuInstance(gpu.minor(), mig.gpuInstanceId());
                Optional<Integer> ci = capMinors.computeInstance(gpu.minor(), mig.gpuInstanceId(), mig.computeInstanceId());
                for (var cap : List.of(Map.entry(MigMinors.gpuInstanceKey(gpu.minor(), mig.gpuInstanceId()), gi),
                        Map.entry(MigMinors.computeInstanceKey(gpu.minor(), mig.gpuInstanceId(), mig.computeInstanceId()), ci))) {
                    if (cap.getValue().isEmpty()) {
                        throw new CdiException("MIG device " + mig.uuid() + " has no capability " + cap.getKey() + " in "
                                + table);
                    }
                    nodes.add(roots.deviceNode("/dev/nvidia-caps/nvidia-cap" + cap.getValue().get()));
                }
                addDevice(devices, options, n -> n.name(gpu, mig), simplify(deviceEdits(nodes), common));
            }
        }
        if (devices.isEmpty()) {
            throw new CdiException("the node has no GPU or MIG device to describe (invalid spec, no devices)");
        }
        if (options.allDevice()) {
            CdiSpec.ContainerEdits merged = CdiSpec.ContainerEdits.EMPTY;
            for (CdiSpec.Device device : devices) {
                merged = merged.append(device.containerEdits());
            }
            devices.add(new CdiSpec.Device("all", dedupe(merged)));
        }
        return new CdiSpec("0.3.0", options.kind(), Map.of(), devices, common).withMinimumVersion();
    }

    private interface Namer {
        String name(NameStrategy strategy);
    }

    private static void addDevice(List<CdiSpec.Device> devices, Options options, Namer namer, CdiSpec.ContainerEdits edits) {
        for (NameStrategy strategy : options.nameStrategies()) {
            devices.add(new CdiSpec.Device(namer.name(strategy), edits));
        }
    }

    private static CdiSpec.ContainerEdits deviceEdits(List<CdiSpec.DeviceNode> nodes) {
        List<Long> gids = new ArrayList<>();
        for (CdiSpec.DeviceNode node : nodes) {
            if (node.gid().isPresent() && node.gid().getAsLong() != 0 && node.fileMode().isPresent()
                    && (node.fileMode().getAsLong() & 06) != 06 && !gids.contains(node.gid().getAsLong())) {
                gids.add(node.gid().getAsLong());
            }
        }
        return new CdiSpec.ContainerEdits(List.of(), nodes, List.of(), List.of(), Optional.empty(), gids, List.of());
    }

    /** nvcdi's simplifier: a device's edits without what the spec-level edits hold already. */
    private static CdiSpec.ContainerEdits simplify(CdiSpec.ContainerEdits device, CdiSpec.ContainerEdits common) {
        CdiSpec.ContainerEdits simplified = new CdiSpec.ContainerEdits(
                device.env().stream().filter(e -> !common.env().contains(e)).toList(),
                device.deviceNodes().stream().filter(n -> common.deviceNodes().stream().noneMatch(c -> c.path().equals(n.path()))).toList(),
                device.hooks().stream().filter(h -> !common.hooks().contains(h)).toList(),
                device.mounts().stream().filter(m -> common.mounts().stream().noneMatch(c -> c.containerPath().equals(m.containerPath()))).toList(),
                device.intelRdt(), device.additionalGids().stream().filter(g -> !common.additionalGids().contains(g)).toList(),
                device.netDevices());
        return simplified.isEmpty() ? device : simplified;
    }

    /** The merged {@code all} device without repeated entries. */
    private static CdiSpec.ContainerEdits dedupe(CdiSpec.ContainerEdits edits) {
        Map<String, CdiSpec.DeviceNode> nodes = new java.util.LinkedHashMap<>();
        edits.deviceNodes().forEach(n -> nodes.putIfAbsent(n.path(), n));
        return new CdiSpec.ContainerEdits(List.copyOf(new LinkedHashSet<>(edits.env())), List.copyOf(nodes.values()),
                List.copyOf(new LinkedHashSet<>(edits.hooks())), List.copyOf(new LinkedHashSet<>(edits.mounts())),
                edits.intelRdt(), List.copyOf(new LinkedHashSet<>(edits.additionalGids())), edits.netDevices());
    }

    // ---- spec-level edits ------------------------------------------------------------------------------------

    private static CdiSpec.ContainerEdits commonEdits(Options options, Roots roots, String version) {
        List<CdiSpec.DeviceNode> nodes = new ArrayList<>();
        for (String node : CONTROL_DEVICE_NODES) {
            if (Files.exists(roots.devLookup(node))) {
                nodes.add(roots.deviceNode(node));
            }
        }
        String libraryDir = libraryDirectory(roots, version);
        List<String> libraries = new ArrayList<>();
        libraries.addAll(glob(roots, libraryDir, "*.so." + version));
        libraries.addAll(glob(roots, libraryDir + "/vdpau", "*.so." + version));
        libraries.addAll(glob(roots, libraryDir, "libnvidia-nvvm70.so.*").stream().filter(l -> !libraries.contains(l)).toList());

        List<CdiSpec.Mount> mounts = new ArrayList<>();
        for (String library : libraries) {
            mounts.add(roots.mount(library, MOUNT_OPTIONS));
        }
        for (String socket : List.of("/nvidia-persistenced/socket", "/nvidia-fabricmanager/socket")) {
            Stream.of("/run" + socket, "/var/run" + socket).filter(p -> Files.exists(roots.driverLookup(p))).findFirst()
                    .ifPresent(p -> mounts.add(roots.mount(p, IPC_MOUNT_OPTIONS)));
        }
        if (Files.exists(roots.driverLookup("/tmp/nvidia-mps"))) {
            mounts.add(roots.mount("/tmp/nvidia-mps", IPC_MOUNT_OPTIONS));
        }
        String release = System.getProperty("os.version", "");
        for (String dir : List.of("/lib/firmware/updates/" + release, "/lib/firmware/updates", "/lib/firmware/" + release, "/lib/firmware")) {
            List<String> firmware = glob(roots, dir + "/nvidia/" + version, "gsp*.bin");
            if (!firmware.isEmpty()) {
                firmware.forEach(f -> mounts.add(roots.mount(f, MOUNT_OPTIONS)));
                break;
            }
        }
        for (String binary : BINARIES) {
            BINARY_SEARCH_PATHS.stream().map(dir -> dir + "/" + binary)
                    .filter(p -> Files.isRegularFile(roots.driverLookup(p)) && Files.isExecutable(roots.driverLookup(p)))
                    .findFirst().ifPresent(p -> mounts.add(roots.mount(p, MOUNT_OPTIONS)));
        }

        List<CdiSpec.Hook> hooks = new ArrayList<>();
        List<String> links = symlinks(roots, libraries);
        if (!links.isEmpty() && options.hookEnabled("create-symlinks")) {
            List<String> args = new ArrayList<>();
            links.forEach(l -> { args.add("--link"); args.add(l); });
            hooks.add(hook(options, "create-symlinks", args));
        }
        if (options.hookEnabled("enable-cuda-compat")) {
            hooks.add(hook(options, "enable-cuda-compat", List.of("--host-driver-version=" + version)));
        }
        if (!libraries.isEmpty() && options.hookEnabled("update-ldcache")) {
            List<String> args = new ArrayList<>();
            libraries.stream().map(NvidiaCdiGenerator::parent).distinct().forEach(d -> { args.add("--folder"); args.add(d); });
            hooks.add(hook(options, "update-ldcache", args));
        }
        if (options.hookEnabled("disable-device-node-modification")) {
            hooks.add(hook(options, "disable-device-node-modification", List.of()));
        }
        if (options.hookEnabled("update-application-profile")) {
            hooks.add(hook(options, "update-application-profile", List.of()));
        }
        List<String> env = List.of("NVIDIA_CTK_LIBCUDA_DIR=" + libraryDir, "NVIDIA_VISIBLE_DEVICES=void");
        return new CdiSpec.ContainerEdits(env, nodes, hooks, mounts, Optional.empty(), deviceEdits(nodes).additionalGids(), List.of());
    }

    /**
     * The driver version a driver root holds, from the suffix of {@code libcuda.so.<version>} (else
     * {@code libnvidia-ml.so.<version>}) in the library search path, as nvcdi infers it when NVML does not say.
     */
    public static Optional<String> inferDriverVersion(Path driverRoot) {
        for (String library : List.of("libcuda.so.", "libnvidia-ml.so.")) {
            for (String dir : LIBRARY_SEARCH_PATHS) {
                Path lookup = Roots.under(driverRoot, dir);
                if (!Files.isDirectory(lookup)) {
                    continue;
                }
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(lookup, library + "*.*")) {
                    for (Path entry : entries) {
                        String version = entry.getFileName().toString().substring(library.length());
                        if (version.matches("\\d+(\\.\\d+)+")) {
                            return Optional.of(version);
                        }
                    }
                } catch (IOException e) {
                    // a directory it may not read holds no driver for it
                }
            }
        }
        return Optional.empty();
    }

    /** The container-view directory holding {@code libcuda.so.<version>}, else {@code libnvidia-ml.so.<version>}. */
    private static String libraryDirectory(Roots roots, String version) {
        for (String library : List.of("libcuda.so.", "libnvidia-ml.so.")) {
            for (String dir : LIBRARY_SEARCH_PATHS) {
                String path = (dir.equals("/") ? "" : dir) + "/" + library + version;
                if (Files.exists(roots.driverLookup(path))) {
                    return dir.equals("/") ? "/" : dir;
                }
            }
        }
        throw new CdiException("the driver root was '" + roots.options.driverRoot() + "' but it holds neither"
                + " libcuda.so." + version + " nor libnvidia-ml.so." + version + " in " + LIBRARY_SEARCH_PATHS
                + " (the driver root as this process sees it: --driver-root-ctr-path / CONTAINER_DRIVER_ROOT; is the"
                + " driver " + version + " installed there?)");
    }

    /** Container-view paths of the files in {@code dir} matching {@code pattern}, sorted as Go's glob sorts. */
    private static List<String> glob(Roots roots, String dir, String pattern) {
        Path lookup = roots.driverLookup(dir);
        if (!Files.isDirectory(lookup)) {
            return List.of();
        }
        List<String> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(lookup, pattern)) {
            for (Path entry : entries) {
                if (!Files.isDirectory(entry)) {
                    found.add((dir.endsWith("/") ? dir : dir + "/") + entry.getFileName());
                }
            }
        } catch (IOException e) {
            throw new CdiException("could not list " + lookup + ": " + e.getMessage(), e);
        }
        found.sort(null);
        return found;
    }

    /**
     * The {@code create-symlinks} links: {@code libcuda.so.1::<dir>/libcuda.so} (and the same for
     * {@code libnvidia-opticalflow}, {@code libGLX_indirect.so.0}), then for each versioned library the link named
     * by its ELF SONAME and the {@code .so} link of that SONAME, where those exist next to it on the host (none for a
     * library whose SONAME cannot be read, as nvcdi).
     */
    private static List<String> symlinks(Roots roots, List<String> libraries) {
        LinkedHashSet<String> links = new LinkedHashSet<>();
        for (String library : libraries) {
            String dir = parent(library);
            String name = library.substring(library.lastIndexOf('/') + 1);
            if (name.startsWith("libcuda.so.")) {
                links.add("libcuda.so.1::" + join(dir, "libcuda.so"));
            } else if (name.startsWith("libGLX_nvidia.so.")) {
                links.add(name + "::" + join(dir, "libGLX_indirect.so.0"));
            } else if (name.startsWith("libnvidia-opticalflow.so.")) {
                links.add("libnvidia-opticalflow.so.1::" + join(dir, "libnvidia-opticalflow.so"));
            }
            Optional<String> soname = ElfSoname.read(roots.driverLookup(library));
            if (soname.isEmpty()) {
                continue;   // nvcdi gives up on a library whose SONAME it cannot read
            }
            soname.filter(s -> !s.equals(name) && exists(roots.driverLookup(join(dir, s))))
                    .ifPresent(s -> links.add(name + "::" + join(dir, s)));
            String soTarget = soname.get();
            int so = soTarget.indexOf(".so");
            String soLink = so < 0 ? soTarget : soTarget.substring(0, so + 3);
            if (!soLink.equals(soTarget) && exists(roots.driverLookup(join(dir, soLink)))) {
                links.add(soTarget + "::" + join(dir, soLink));
            }
        }
        return List.copyOf(links);
    }

    private static CdiSpec.Hook hook(Options options, String name, List<String> arguments) {
        String binary = options.hookPath().substring(options.hookPath().lastIndexOf('/') + 1);
        List<String> args = new ArrayList<>();
        args.add(binary);
        if (binary.equals("nvidia-ctk")) {
            args.add("hook");
        }
        args.add(name);
        args.addAll(arguments);
        return new CdiSpec.Hook("createContainer", options.hookPath(), args, List.of("NVIDIA_CTK_DEBUG=false"),
                java.util.OptionalInt.empty());
    }

    // ---- device nodes ------------------------------------------------------------------------------------------

    /** The GPU's DRM nodes: each {@code card*} and {@code renderD*} under its sysfs {@code drm/} that exists in dev/. */
    private static List<CdiSpec.DeviceNode> drmNodes(Options options, Roots roots, Gpu gpu) {
        Path drm = options.sysRoot().resolve("sys/bus/pci/devices").resolve(gpu.pciBusId().toLowerCase(Locale.ROOT)).resolve("drm");
        if (!Files.isDirectory(drm)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(drm)) {
            return entries.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("card") || n.startsWith("renderD")).sorted()
                    .map(n -> "/dev/dri/" + n).filter(p -> Files.exists(roots.devLookup(p)))
                    .map(roots::deviceNode).toList();
        } catch (IOException e) {
            throw new CdiException("could not list " + drm + ": " + e.getMessage(), e);
        }
    }

    /** A file or a symlink (even a dangling one) is there. */
    private static boolean exists(Path path) {
        return Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    private static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    private static String join(String dir, String name) {
        return dir.endsWith("/") ? dir + name : dir + "/" + name;
    }

    /** Path arithmetic between the agent's view and the host's. */
    private record Roots(Options options) {

        Path driverLookup(String containerPath) {
            return under(options.driverRoot(), containerPath);
        }

        Path devLookup(String containerPath) {
            return under(options.devRoot(), containerPath);
        }

        CdiSpec.Mount mount(String containerPath, List<String> mountOptions) {
            return new CdiSpec.Mount(under(options.targetDriverRoot(), containerPath).toString(), containerPath, mountOptions);
        }

        /** A device node with its host path on the host's dev root; numbers and mode when it is a char device. */
        CdiSpec.DeviceNode deviceNode(String containerPath) {
            String hostPath = under(options.targetDevRoot(), containerPath).toString();
            Path lookup = devLookup(containerPath);
            try {
                int mode = (Integer) Files.getAttribute(lookup, "unix:mode");
                if ((mode & S_IFMT) == S_IFCHR) {
                    long rdev = (Long) Files.getAttribute(lookup, "unix:rdev");
                    int gid = (Integer) Files.getAttribute(lookup, "unix:gid");
                    long major = ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL);
                    long minor = (rdev & 0xff) | ((rdev >>> 12) & ~0xffL);
                    return new CdiSpec.DeviceNode(containerPath, Optional.of(hostPath), Optional.empty(),
                            OptionalLong.of(major), OptionalLong.of(minor), OptionalLong.of(mode & 07777),
                            Optional.of("rwm"), OptionalLong.empty(), gid == 0 ? OptionalLong.empty() : OptionalLong.of(gid));
                }
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                // not readable here: the runtime reads it
            }
            return CdiSpec.DeviceNode.of(containerPath, hostPath);
        }

        static Path under(Path root, String absolute) {
            String relative = absolute.startsWith("/") ? absolute.substring(1) : absolute;
            return relative.isEmpty() ? root : root.resolve(relative);
        }
    }
}
