package dev.kgpu.plugin.config;

import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.config.ConfigException;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.Config;
import dev.kgpu.config.v1.ConfigJson;
import dev.kgpu.config.v1.DeviceDiscoveryStrategy;
import dev.kgpu.config.v1.DeviceIdStrategy;
import dev.kgpu.config.v1.FileField;
import dev.kgpu.config.v1.Flags;
import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.PluginFlags;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.plugin.health.HealthChecks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Everything the device plugin is configured with: the effective config v1 ({@link #config()}) and the
 * settings NVIDIA's plugin keeps outside the file. Flags and environment variables carry NVIDIA's
 * names ({@code cmd/nvidia-device-plugin/main.go}), so a DaemonSet and ConfigMap written for NVIDIA's
 * plugin work unchanged.
 *
 * <pre>{@code
 * ConfigLoader<DevicePluginConfig> loader = DevicePluginConfig.loader(args, System::getenv);
 * DevicePluginConfig config = loader.load();          // ConfigException: print getMessage(), exit(exitCode())
 * config.warnings().forEach(w -> log.warn(w.toString()));
 * log.info("Running with config:\n" + config.toJson());
 * ...
 * // on SIGHUP
 * switch (loader.reload()) { ... }
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 *
 * @param config          the effective config file, flags and environment applied
 * @param configFile      the config file read, if any ({@code --config-file}, {@code CONFIG_FILE})
 * @param kubeletSocket   the kubelet's registration socket; empty when set to "" (no registration)
 * @param healthChecks    which XIDs mark devices unhealthy ({@code DP_DISABLE_HEALTHCHECKS}, {@code DP_ENABLE_HEALTHCHECKS})
 * @param cdiFeatureFlags feature flags for CDI spec generation ({@code --cdi-feature-flags})
 * @param cdiDisableHooks OCI hooks left out of generated CDI specs ({@code --cdi-disable-hooks})
 * @param warnings        accepted but suspicious settings, to log at WARN
 */
public record DevicePluginConfig(
        Config config,
        Optional<Path> configFile,
        Optional<Path> kubeletSocket,
        HealthChecks healthChecks,
        List<String> cdiFeatureFlags,
        List<String> cdiDisableHooks,
        List<ConfigWarning> warnings) {

    /** The kubelet's socket in {@code /var/lib/kubelet/device-plugins}. */
    public static final Path DEFAULT_KUBELET_SOCKET = Path.of("/var/lib/kubelet/device-plugins/kubelet.sock");

    static final String NAME = "the device plugin";
    /** NVIDIA's name of the MPS control daemon agent, which the plugin's image also runs. */
    public static final String MPS_CONTROL_DAEMON = "mps-control-daemon";

    static final Setting<String> CONFIG_FILE = Setting.of(List.of("config-file"), List.of("CONFIG_FILE"),
            ValueType.string(), "", "the config file (NVIDIA's config v1), as an alternative to flags and environment");
    /** The shortest name a resource's socket beside the kubelet's has; its folder must leave room for it. */
    static final String SHORTEST_RESOURCE_SOCKET = "nvidia-gpu.sock";
    static final Setting<String> KUBELET_SOCKET = Setting.of(List.of("kubelet-socket"), List.of("KUBELET_SOCKET"),
            ValueType.of("path", DevicePluginConfig::socketPath, path -> path), DEFAULT_KUBELET_SOCKET.toString(),
            "the kubelet's registration socket; empty means do not register");
    static final Setting<List<String>> CDI_FEATURE_FLAGS = Setting.of(List.of("cdi-feature-flags"),
            List.of("CDI_FEATURE_FLAGS"), ValueType.stringList(), List.of(), "feature flags for CDI spec generation");
    static final Setting<List<String>> CDI_DISABLE_HOOKS = Setting.of(List.of("cdi-disable-hooks"),
            List.of("CDI_DISABLE_HOOKS"), ValueType.stringList(), List.of(),
            "OCI hooks to leave out of generated CDI specs; 'all' leaves out every hook");

    /** NVIDIA's plugin flags and variables, in its order. */
    public static final List<Setting<?>> SETTINGS = List.of(
            Setting.of(FileField.MIG_STRATEGY, List.of("mig-strategy"), List.of("MIG_STRATEGY"),
                    "how MIG devices are exposed: none, single or mixed"),
            Setting.of(FileField.FAIL_ON_INIT_ERROR, List.of("fail-on-init-error"), List.of("FAIL_ON_INIT_ERROR"),
                    "exit when NVML cannot start, rather than wait with no devices"),
            Setting.of(FileField.NVIDIA_DRIVER_ROOT, List.of("driver-root", "nvidia-driver-root", "host_driver-root"),
                    List.of("NVIDIA_DRIVER_ROOT", "HOST_DRIVER_ROOT"), "the driver's root on the host ('/' or e.g. '/run/nvidia/driver')"),
            Setting.of(FileField.NVIDIA_DEV_ROOT, List.of("dev-root", "nvidia-dev-root"), List.of("NVIDIA_DEV_ROOT"),
                    "the root of the device nodes on the host; empty means the driver root"),
            Setting.of(FileField.PASS_DEVICE_SPECS, List.of("pass-device-specs"), List.of("PASS_DEVICE_SPECS"),
                    "pass /dev/nvidia* device specs to the kubelet on Allocate"),
            Setting.of(FileField.DEVICE_LIST_STRATEGY, List.of("device-list-strategy"), List.of("DEVICE_LIST_STRATEGY"),
                    "how devices reach the runtime: envvar, volume-mounts, cdi-annotations, cdi-cri (comma list)"),
            Setting.of(FileField.DEVICE_ID_STRATEGY, List.of("device-id-strategy"), List.of("DEVICE_ID_STRATEGY"),
                    "device IDs handed to the runtime: uuid or index"),
            Setting.of(FileField.GDRCOPY_ENABLED, List.of("gdrcopy-enabled"), List.of("GDRCOPY_ENABLED"),
                    "give GPU containers GDRCopy"),
            Setting.of(FileField.GDS_ENABLED, List.of("gds-enabled"), List.of("GDS_ENABLED"),
                    "give GPU containers GPUDirect Storage"),
            Setting.of(FileField.MOFED_ENABLED, List.of("mofed-enabled"), List.of("MOFED_ENABLED"),
                    "give GPU containers MOFED"),
            Setting.of(FileField.CDI_ANNOTATION_PREFIX, List.of("cdi-annotation-prefix"), List.of("CDI_ANNOTATION_PREFIX"),
                    "the prefix of CDI annotation keys"),
            Setting.of(FileField.NVIDIA_CTK_PATH, List.of("nvidia-cdi-hook-path", "nvidia-ctk-path"),
                    List.of("NVIDIA_CDI_HOOK_PATH", "NVIDIA_CTK_PATH"), "the NVIDIA CDI hook in generated CDI specs"),
            Setting.of(FileField.CONTAINER_DRIVER_ROOT, List.of("driver-root-ctr-path", "container-driver-root"),
                    List.of("DRIVER_ROOT_CTR_PATH", "CONTAINER_DRIVER_ROOT"),
                    "where the driver root is mounted in this container"),
            Setting.of(FileField.MPS_ROOT, List.of("mps-root"), List.of("MPS_ROOT"),
                    "the host folder of the MPS control daemons; required with sharing.mps"),
            Setting.of(FileField.SHARED_DEVICES_ALLOCATION_POLICY, List.of("shared-devices-allocation-policy"),
                    List.of("SHARED_DEVICES_ALLOCATION_POLICY"), "how replicas are picked: distributed or packed"),
            Setting.of(FileField.DEVICE_DISCOVERY_STRATEGY, List.of("device-discovery-strategy"),
                    List.of("DEVICE_DISCOVERY_STRATEGY"), "how devices are found: auto, nvml or tegra"),
            Setting.of(FileField.IMEX_CHANNEL_IDS, List.of("imex-channel-ids"), List.of("IMEX_CHANNEL_IDS"),
                    "IMEX channels to inject: none or 0"),
            Setting.of(FileField.IMEX_REQUIRED, List.of("imex-required"), List.of("IMEX_REQUIRED"),
                    "the IMEX channels must exist at start"),
            KUBELET_SOCKET,
            CONFIG_FILE,
            CDI_FEATURE_FLAGS,
            CDI_DISABLE_HOOKS);

    public DevicePluginConfig {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(configFile, "configFile");
        Objects.requireNonNull(kubeletSocket, "kubeletSocket");
        Objects.requireNonNull(healthChecks, "healthChecks");
        cdiFeatureFlags = List.copyOf(cdiFeatureFlags);
        cdiDisableHooks = List.copyOf(cdiDisableHooks);
        warnings = List.copyOf(warnings);
    }

    /**
     * What the device plugin cannot run with; with {@code requireMpsRoot} (the device plugin, not the MPS control
     * daemon, which works in its container's folder) also a missing {@code mpsRoot} with {@code sharing.mps}: Allocate
     * mounts the host's MPS folders into containers.
     */
    private static List<ValidationFailure> rules(Config config, boolean requireMpsRoot) {
        List<ValidationFailure> failures = new ArrayList<>();
        if (config.flags().deviceDiscoveryStrategy() == DeviceDiscoveryStrategy.VFIO) {
            failures.add(new ValidationFailure(FileField.DEVICE_DISCOVERY_STRATEGY.path(), "vfio",
                    "must be one of auto, nvml, tegra for the device plugin (vfio is for feature discovery only)"));
        }
        if (config.sharing().strategy() == SharingStrategy.MPS) {
            if (config.flags().migStrategy() == MigStrategy.MIXED) {
                failures.add(new ValidationFailure(FileField.MIG_STRATEGY.path(), "mixed",
                        "must be none or single when sharing.mps shares devices (MPS cannot share MIG devices by profile)"));
            }
            if (requireMpsRoot && config.flags().mpsRoot().isEmpty()) {
                failures.add(ValidationFailure.missing(FileField.MPS_ROOT.path(),
                        "must be set (flags.mpsRoot, --mps-root or MPS_ROOT) when sharing.mps shares devices;"
                                + " NVIDIA's Helm chart uses /run/nvidia/mps"));
            }
        }
        return failures;
    }

    /**
     * Loads the plugin's configuration once.
     *
     * @param args        the command line, without the program name
     * @param environment {@code System::getenv} in production
     * @throws UsageRequestedException after {@code --help}: print the message and exit 0
     * @throws InvalidConfigException  listing every bad setting: print the message and exit 1
     */
    public static DevicePluginConfig load(String[] args, Function<String, String> environment) {
        return loader(args, environment).load();
    }

    /** A loader that can also {@link ConfigLoader#reload() reload} on SIGHUP. */
    public static ConfigLoader<DevicePluginConfig> loader(String[] args, Function<String, String> environment) {
        return loader(args, environment, List.of(), (config, resolved) -> config);
    }

    /**
     * A loader of these settings together with {@code more} of the agent's own (kgpu's variables), so that
     * every setting is read once, all failures come on one line and {@code --help} lists them all.
     * {@code build} makes the agent's record from the config and the same resolved settings, from which it
     * reads {@code more}.
     */
    public static <T> ConfigLoader<T> loader(String[] args, Function<String, String> environment,
                                             List<Setting<?>> more,
                                             BiFunction<DevicePluginConfig, ConfigLoader.Resolved, T> build) {
        return loader(NAME, true, args, environment, more, build);
    }

    /**
     * The loader of NVIDIA's {@code mps-control-daemon}, which reads the device plugin's flags, variables and config
     * file (its {@code --config-file}/{@code CONFIG_FILE}, {@code --mig-strategy}/{@code MIG_STRATEGY} among them) with
     * {@code more} of kgpu's, but needs no {@code mpsRoot}: it works in its container's folder.
     */
    public static <T> ConfigLoader<T> mpsControlDaemonLoader(String[] args, Function<String, String> environment,
                                                            List<Setting<?>> more,
                                                            BiFunction<DevicePluginConfig, ConfigLoader.Resolved, T> build) {
        return loader(MPS_CONTROL_DAEMON, false, args, environment, more, build);
    }

    private static <T> ConfigLoader<T> loader(String name, boolean mpsRoot, String[] args,
                                              Function<String, String> environment, List<Setting<?>> more,
                                              BiFunction<DevicePluginConfig, ConfigLoader.Resolved, T> build) {
        List<Setting<?>> settings = new ArrayList<>(SETTINGS);
        settings.addAll(more);
        return new ConfigLoader<>(new ConfigLoader.Agent<>(name, settings, Optional.of(CONFIG_FILE),
                resolved -> build.apply(build(resolved, environment, mpsRoot), resolved)), args, environment);
    }

    private static DevicePluginConfig build(ConfigLoader.Resolved resolved, Function<String, String> environment,
                                            boolean mpsRoot) {
        String socket = resolved.get(KUBELET_SOCKET);
        List<String> featureFlags = resolved.get(CDI_FEATURE_FLAGS);
        List<String> disableHooks = resolved.get(CDI_DISABLE_HOOKS);
        Config config = resolved.config(SETTINGS);
        HealthChecks health = HealthChecks.DEFAULT;
        try {
            health = HealthChecks.fromEnvironment(environment);
        } catch (InvalidConfigException e) {
            resolved.fail(e.failures());
        }
        List<ValidationFailure> failures = rules(config, mpsRoot);
        if (!failures.isEmpty()) {
            throw new InvalidConfigException(failures);
        }
        return new DevicePluginConfig(config, resolved.configFile(),
                socket.isEmpty() ? Optional.empty() : Optional.of(Path.of(socket)),
                health, featureFlags, disableHooks, resolved.warnings());
    }

    /** The effective config as NVIDIA's plugin logs it after "Running with config:" (no {@code flags.gfd}). */
    public String toJson() {
        return ConfigJson.toJson(config, ConfigJson.Blocks.DEVICE_PLUGIN);
    }

    /**
     * The CDI generator's roots, hook path and names, from NVIDIA's flags ({@code containerDriverRoot},
     * {@code nvidiaDriverRoot}, {@code nvidiaDevRoot}, {@code nvidiaCTKPath}, {@code deviceIDStrategy}): the device
     * plugin's spec and the DRA driver's per-claim specs are generated with them. The agent's view of {@code dev/} is the
     * container driver root when it holds one, else its own {@code /dev} (NVIDIA's rule), looked up here.
     *
     * @param procRoot where {@code proc/driver/nvidia-caps/mig-minors} is read
     */
    public NvidiaCdiGenerator.Options cdiGenerator(Path procRoot) {
        Flags flags = config.flags();
        PluginFlags plugin = flags.plugin();
        Path containerDriverRoot = Path.of(plugin.containerDriverRoot());
        Path devRootSeen = Files.isDirectory(containerDriverRoot.resolve("dev")) ? containerDriverRoot : Path.of("/");
        return new NvidiaCdiGenerator.Options(NvidiaCdiGenerator.DEVICE_PLUGIN_KIND, containerDriverRoot,
                Path.of(flags.nvidiaDriverRoot()), devRootSeen, Path.of(flags.nvidiaDevRoot()), procRoot, Path.of("/"),
                plugin.nvidiaCTKPath(), List.of(plugin.deviceIDStrategy() == DeviceIdStrategy.INDEX
                        ? NvidiaCdiGenerator.NameStrategy.INDEX : NvidiaCdiGenerator.NameStrategy.UUID), false, Set.of());
    }

    /** The device-plugins folder: the kubelet socket's folder, or the kubelet's default when not registering. */
    public Path socketDirectory() {
        return folderOf(kubeletSocket.orElse(DEFAULT_KUBELET_SOCKET));
    }

    /** The folder a socket is in; {@code .} for a bare name, as Go's {@code filepath.Dir} has it. */
    private static Path folderOf(Path socket) {
        Path parent = socket.getParent();
        return parent == null ? Path.of(".") : parent;
    }

    /**
     * A kubelet socket path: empty (no registration), or a path a Unix socket can have, in a folder that
     * leaves room for the plugin's own sockets.
     */
    private static String socketPath(String text) {
        if (text.isEmpty()) {
            return text;
        }
        if (text.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("must be a path without NUL characters");
        }
        int bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > UnixSocketTransport.MAX_SOCKET_PATH_BYTES) {
            throw new IllegalArgumentException("must be a path of at most " + UnixSocketTransport.MAX_SOCKET_PATH_BYTES
                    + " bytes, the most a Unix socket's path may have (it has " + bytes + ")");
        }
        Path folder = folderOf(Path.of(text));
        int resourceBytes = folder.resolve(SHORTEST_RESOURCE_SOCKET).toString()
                .getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (resourceBytes > UnixSocketTransport.MAX_SOCKET_PATH_BYTES) {
            throw new IllegalArgumentException("must be in a folder whose path leaves room for the plugin's own"
                    + " sockets, such as " + SHORTEST_RESOURCE_SOCKET + ", within the " + UnixSocketTransport.MAX_SOCKET_PATH_BYTES
                    + " bytes a Unix socket's path may have (that one would have " + resourceBytes + ")");
        }
        return text;
    }
}
