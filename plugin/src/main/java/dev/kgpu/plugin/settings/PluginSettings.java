package dev.kgpu.plugin.settings;

import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.NvmlSettings;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.v1.AllocationPolicy;
import dev.kgpu.config.v1.DeviceIdStrategy;
import dev.kgpu.config.v1.DeviceListStrategy;
import dev.kgpu.config.v1.Flags;
import dev.kgpu.config.v1.GoDuration;
import dev.kgpu.config.v1.PluginFlags;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.plugin.config.DevicePluginConfig;
import dev.kgpu.plugin.config.KubeletApi;
import dev.kgpu.plugin.deviceplugin.CdiSettings;
import dev.kgpu.plugin.deviceplugin.allocation.AllocationSettings;
import dev.kgpu.plugin.deviceplugin.allocation.SharedAllocationPolicy;
import dev.kgpu.plugin.deviceplugin.resources.ConfiguredResourcePlanner;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanner;
import dev.kgpu.plugin.dra.DraSettings;
import dev.kgpu.plugin.health.HealthChecks;
import dev.kgpu.plugin.health.HealthPolicy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Everything the device plugin runs with, read and validated at once by {@link #load}, through one
 * {@code dev.kgpu.agent.settings} loader: NVIDIA's flags, environment variables and config file v1 (flag, then
 * variable, then file), NVIDIA's health variables, and kgpu's own, listed here. The entry point loads it at
 * start and the supervisor loads it again the same way on SIGHUP. Immutable.
 *
 * <p>The command line and the environment are the same for every load, so a reload can only change what
 * the config file sets: {@link #planner()}, {@link #allocation()}, {@link #sharedPolicy()} and
 * {@link #failOnInitError()}. The rest is taken from the first load.
 *
 * @param kubeletSocket       the kubelet's registration socket; empty means serve but never register
 * @param socketDirectory     the device-plugins directory the resource sockets live in
 * @param failOnInitError     exit when the devices cannot be read, rather than wait and retry
 * @param planner             which resources to serve
 * @param allocation          how Allocate answers
 * @param sharedPolicy        how replicas are preferred
 * @param health              which XIDs mark devices Unhealthy and which let them recover
 * @param healthCheckInterval how often devices are probed
 * @param nvml                where to find NVML
 * @param cdi                 whether and how the CDI spec for the names Allocate hands out is written
 * @param procRoot            where {@code proc/driver/nvidia-caps/mig-minors} is read ({@code /}; a simulated
 *                            node's directory)
 * @param devicePlugin        serve the device-plugin API ({@code KGPU_KUBELET_APIS} lists {@code device-plugin})
 * @param dra                 run the DRA kubelet plugin with these settings ({@code KGPU_KUBELET_APIS} lists {@code dra})
 * @param description         the effective configuration as JSON, logged after "Running with config:"
 * @param warnings            accepted but suspicious settings, logged at WARN
 */
public record PluginSettings(Optional<Path> kubeletSocket, Path socketDirectory, boolean failOnInitError,
                             ResourcePlanner planner, AllocationSettings allocation, SharedAllocationPolicy sharedPolicy,
                             HealthPolicy health, Duration healthCheckInterval, NvmlOptions nvml, CdiSettings cdi,
                             Path procRoot, boolean devicePlugin, Optional<DraSettings> dra, String description,
                             List<ConfigWarning> warnings) {

    private static final System.Logger LOG = System.getLogger(PluginSettings.class.getName());

    /** The shortest quiet period and probe interval: shorter ones would probe NVML in a near-busy loop. */
    static final Duration SHORTEST_INTERVAL = Duration.ofSeconds(1);
    /** kgpu: how long a device marked by a recoverable XID must stay free of critical XIDs before it is probed. */
    static final Setting<Optional<Duration>> QUIET_PERIOD = Setting.of(List.of(), List.of("KGPU_HEALTH_QUIET_PERIOD"),
            goDuration(true), Optional.empty(), "kgpu: how long a device marked by an XID must see no new critical XID"
                    + " before it is probed for recovery, at least 1s; 0 turns recovery off (default 1m)");
    /** kgpu: XIDs that normally need a GPU reset but may recover anyway. */
    static final Setting<Set<Long>> RECOVERABLE_XIDS = Setting.of(List.of(), List.of("KGPU_HEALTH_RECOVERABLE_XIDS"),
            HealthChecks.XID_LIST, Set.of(), "kgpu: XIDs that normally need a GPU reset (48, 79, ...) but may recover");
    /** kgpu: the time between device probes. */
    static final Setting<Optional<Duration>> CHECK_INTERVAL = Setting.of(List.of(), List.of("KGPU_HEALTH_CHECK_INTERVAL"),
            goDuration(false), Optional.empty(), "kgpu: the time between device probes, at least 1s (default 5s)");
    static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(5);
    /** kgpu: where the CDI spec goes when a CDI strategy is on. */
    static final Setting<String> CDI_SPEC_DIR = Setting.of(List.of(), List.of("KGPU_CDI_SPEC_DIR"),
            ValueType.absolutePath(), CdiSpecWriter.DEFAULT_DIRECTORY.toString(),
            "kgpu: the folder the CDI spec of the names Allocate hands out is written to, with a CDI device-list strategy");
    /** kgpu: the root of the /proc file system the driver's MIG capability table is read from. */
    static final Setting<String> PROC_ROOT = Setting.of(List.of(), List.of("KGPU_PROC_ROOT"),
            ValueType.absolutePath(), "/", "kgpu: the root proc/driver/nvidia-caps/mig-minors is read under (a"
                    + " simulated node's directory; / on a node)");

    /** kgpu: which kubelet APIs to serve. */
    static final Setting<Set<KubeletApi>> KUBELET_APIS = Setting.of(List.of("kubelet-apis"), List.of("KGPU_KUBELET_APIS"),
            ValueType.setOf(KubeletApi.class), Set.of(KubeletApi.DEVICE_PLUGIN),
            "kgpu: the kubelet APIs to serve: device-plugin, dra (the DRA driver gpu.nvidia.com), or both");
    /** NVIDIA's DRA driver: this node's name. */
    static final Setting<String> NODE_NAME = Setting.of(List.of("node-name"), List.of("NODE_NAME"),
            ValueType.kubernetesName(), "", "the node's name: the DRA driver's pool and its ResourceSlices' node; required with dra");
    /** NVIDIA's DRA driver: where the per-claim CDI specs go. */
    static final Setting<String> CDI_ROOT = Setting.of(List.of("cdi-root"), List.of("CDI_ROOT"), ValueType.absolutePath(),
            DraSettings.DEFAULT_CDI_ROOT.toString(), "the folder the DRA driver writes each claim's CDI spec to");
    /** NVIDIA's DRA driver: the kubelet's plugin-watcher folder. */
    static final Setting<String> REGISTRAR_DIRECTORY = Setting.of(List.of("kubelet-registrar-directory-path"),
            List.of("KUBELET_REGISTRAR_DIRECTORY_PATH"), ValueType.absolutePath(), DraSettings.DEFAULT_REGISTRAR_DIRECTORY.toString(),
            "the kubelet's plugin registration folder, where the DRA driver's registration socket goes");
    /** NVIDIA's DRA driver: the kubelet's plugins folder. */
    static final Setting<String> PLUGINS_DIRECTORY = Setting.of(List.of("kubelet-plugins-directory-path"),
            List.of("KUBELET_PLUGINS_DIRECTORY_PATH"), ValueType.absolutePath(), DraSettings.DEFAULT_PLUGINS_DIRECTORY.toString(),
            "the kubelet's plugins folder; the DRA driver's socket and checkpoint go to <it>/gpu.nvidia.com");

    /** NVIDIA's DRA driver: XIDs that never mark a GPU unhealthy, on top of the application errors. */
    static final Setting<Set<Long>> ADDITIONAL_XIDS_TO_IGNORE = Setting.of(List.of("additional-xids-to-ignore"),
            List.of("ADDITIONAL_XIDS_TO_IGNORE"), HealthChecks.XID_LIST, Set.of(),
            "XIDs that never mark a GPU unhealthy, added to DP_DISABLE_HEALTHCHECKS's (both kubelet APIs)");

    /** kgpu: honour sharing.*.resources[].devices and rename, which NVIDIA's plugin reads and ignores. */
    static final Setting<Boolean> HONOUR_SHARING_DEVICES = Setting.of(List.of(), List.of("KGPU_HONOUR_SHARING_DEVICES"),
            ValueType.bool(), false, "kgpu: share only the devices sharing.*.resources[].devices selects, under its rename"
                    + " (NVIDIA's plugin ignores both and shares every device, its issue #1786; default false, as NVIDIA)");

    /** kgpu's settings and those of NVIDIA's DRA driver, read with NVIDIA's device plugin's. */
    static final List<Setting<?>> KGPU_SETTINGS = List.of(NvmlSettings.LIBRARY, CDI_SPEC_DIR, PROC_ROOT, QUIET_PERIOD, RECOVERABLE_XIDS,
            CHECK_INTERVAL, HONOUR_SHARING_DEVICES, KUBELET_APIS, NODE_NAME, CDI_ROOT, REGISTRAR_DIRECTORY,
            PLUGINS_DIRECTORY, ADDITIONAL_XIDS_TO_IGNORE);

    public PluginSettings {
        Objects.requireNonNull(kubeletSocket, "kubeletSocket");
        Objects.requireNonNull(socketDirectory, "socketDirectory");
        Objects.requireNonNull(planner, "planner");
        Objects.requireNonNull(allocation, "allocation");
        Objects.requireNonNull(sharedPolicy, "sharedPolicy");
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(healthCheckInterval, "healthCheckInterval");
        Objects.requireNonNull(nvml, "nvml");
        Objects.requireNonNull(cdi, "cdi");
        Objects.requireNonNull(procRoot, "procRoot");
        Objects.requireNonNull(dra, "dra");
        Objects.requireNonNull(description, "description");
        warnings = List.copyOf(warnings);
    }

    /**
     * Reads every setting once.
     *
     * @param args        the command line, without the program name
     * @param environment the process environment ({@code System::getenv} or the app's configuration)
     * @throws UsageRequestedException after {@code --help}: print the usage and exit 0
     * @throws InvalidConfigException  naming every bad setting and its value on one line: print it and exit 1
     */
    public static PluginSettings load(String[] args, Function<String, String> environment) {
        return DevicePluginConfig.loader(args, environment, KGPU_SETTINGS, PluginSettings::of).load();
    }

    private static PluginSettings of(DevicePluginConfig loaded, ConfigLoader.Resolved resolved) {
        Flags flags = loaded.config().flags();
        PluginFlags plugin = flags.plugin();
        String devRoot = flags.nvidiaDevRoot();
        boolean mps = loaded.config().sharing().strategy() == SharingStrategy.MPS;
        AllocationSettings allocation = new AllocationSettings(
                plugin.includes(DeviceListStrategy.ENVVAR),
                plugin.includes(DeviceListStrategy.VOLUME_MOUNTS),
                plugin.includes(DeviceListStrategy.CDI_ANNOTATIONS),
                plugin.includes(DeviceListStrategy.CDI_CRI),
                plugin.deviceIDStrategy() == DeviceIdStrategy.INDEX,
                plugin.passDeviceSpecs(),
                devRoot,
                plugin.cdiAnnotationPrefix(),
                mps ? flags.mpsRoot() : Optional.empty(),
                flags.gdrcopyEnabled(),
                flags.gdsEnabled(),
                flags.mofedEnabled(),
                path -> Files.exists(Path.of(devRoot, path)));
        SharedAllocationPolicy shared = plugin.sharedDevicesAllocationPolicy() == AllocationPolicy.PACKED
                ? SharedAllocationPolicy.PACKED : SharedAllocationPolicy.DISTRIBUTED;
        HealthPolicy health = new HealthPolicy(loaded.healthChecks().ignoring(resolved.get(ADDITIONAL_XIDS_TO_IGNORE)),
                resolved.get(QUIET_PERIOD).orElse(HealthPolicy.DEFAULT_QUIET_PERIOD), resolved.get(RECOVERABLE_XIDS));
        Path procRoot = Path.of(resolved.get(PROC_ROOT));
        Path containerDriverRoot = Path.of(plugin.containerDriverRoot());
        Path hostDriverRoot = Path.of(flags.nvidiaDriverRoot());
        // the agent's view of dev/: the container driver root when it holds one, else its own /dev (NVIDIA's rule)
        Path devRootSeen = Files.isDirectory(containerDriverRoot.resolve("dev")) ? containerDriverRoot : Path.of("/");
        NvidiaCdiGenerator.Options generator = new NvidiaCdiGenerator.Options(NvidiaCdiGenerator.DEVICE_PLUGIN_KIND,
                containerDriverRoot, hostDriverRoot, devRootSeen, Path.of(devRoot), procRoot, Path.of("/"),
                plugin.nvidiaCTKPath(), List.of(plugin.deviceIDStrategy() == DeviceIdStrategy.INDEX
                        ? NvidiaCdiGenerator.NameStrategy.INDEX : NvidiaCdiGenerator.NameStrategy.UUID), false, Set.of());
        CdiSettings cdi = new CdiSettings(allocation.cdiAnnotations() || allocation.cdiCri(),
                Path.of(resolved.get(CDI_SPEC_DIR)), generator);
        Set<KubeletApi> apis = resolved.get(KUBELET_APIS);
        Optional<DraSettings> dra = Optional.empty();
        String nodeName = resolved.get(NODE_NAME);
        if (apis.contains(KubeletApi.DRA)) {
            if (nodeName.isEmpty()) {
                resolved.fail(NODE_NAME, "", "must name this node when " + resolved.property(KUBELET_APIS)
                        + " lists dra (the DRA driver's pool and its ResourceSlices' node)");
            } else {
                dra = Optional.of(new DraSettings(nodeName, Path.of(resolved.get(CDI_ROOT)),
                        Path.of(resolved.get(REGISTRAR_DIRECTORY)), Path.of(resolved.get(PLUGINS_DIRECTORY)), procRoot, generator));
            }
        }
        return new PluginSettings(loaded.kubeletSocket(), loaded.socketDirectory(), flags.failOnInitError(),
                new ConfiguredResourcePlanner(loaded.config(), resolved.get(HONOUR_SHARING_DEVICES)
                        ? ConfiguredResourcePlanner.SharingDevices.HONOURED : ConfiguredResourcePlanner.SharingDevices.IGNORED,
                        message -> LOG.log(System.Logger.Level.WARNING, message)), allocation, shared, health,
                resolved.get(CHECK_INTERVAL).orElse(DEFAULT_CHECK_INTERVAL),
                NvmlSettings.options(resolved, hostDriverRoot), cdi, procRoot, apis.contains(KubeletApi.DEVICE_PLUGIN), dra,
                loaded.toJson(), loaded.warnings());
    }

    /** A Go duration ({@code 90s}, {@code 5m}) of at least {@link #SHORTEST_INTERVAL}; blank means the default. */
    private static ValueType<Optional<Duration>> goDuration(boolean zeroAllowed) {
        return ValueType.optional(ValueType.of("Go duration", text -> {
            Duration value;
            try {
                value = GoDuration.parse(text.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("must be a Go duration such as 90s or 5m (" + e.getMessage() + ")");
            }
            if (zeroAllowed && value.isZero()) {
                return value;
            }
            if (value.compareTo(SHORTEST_INTERVAL) < 0) {
                throw new IllegalArgumentException("must be at least " + GoDuration.format(SHORTEST_INTERVAL)
                        + (zeroAllowed ? ", or 0 to turn it off" : "") + " (a shorter one would probe NVML in a near-busy loop)");
            }
            return value;
        }, GoDuration::format));
    }
}
