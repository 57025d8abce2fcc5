package dev.kgpu.exporter.config;

import dev.kgpu.agent.ExecutablePages;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.NvmlSettings;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.counters.CountersException;
import dev.kgpu.exporter.counters.CountersFile;
import dev.kgpu.exporter.web.WebConfig;
import dev.kgpu.exporter.web.WebConfigFile;
import dev.kgpu.nvml.NvmlOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Every setting of the exporter, with dcgm-exporter's flags, variables and defaults, read once at start
 * through the shared {@link ConfigLoader} ({@link #load}) together with the counters file they name, and
 * checked here.
 *
 * @param collectors             the counters file named ({@code -f}, {@code DCGM_EXPORTER_COLLECTORS})
 * @param counters               the rows of that file (or of the built-in copy standing in for it)
 * @param listenHost             host part of {@code DCGM_EXPORTER_LISTEN}; empty string = all interfaces
 * @param listenPort             port part of {@code DCGM_EXPORTER_LISTEN}
 * @param interval               collection interval ({@code DCGM_EXPORTER_INTERVAL}, milliseconds)
 * @param kubernetes             attribute series to pods ({@code DCGM_EXPORTER_KUBERNETES})
 * @param podResourcesSocket     the kubelet's pod-resources socket ({@code DCGM_POD_RESOURCES_KUBELET_SOCKET})
 * @param nvidiaResourceNames    extra resource names that hold GPUs ({@code NVIDIA_RESOURCE_NAMES})
 * @param gpuIdType              how device ids name GPUs ({@code DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE})
 * @param virtualGpus            one series per pod sharing a GPU ({@code KUBERNETES_VIRTUAL_GPUS})
 * @param xidCountWindow         window of {@code DCGM_EXP_XID_ERRORS_COUNT} ({@code DCGM_EXPORTER_XID_COUNT_WINDOW_SIZE})
 * @param clockEventsCountWindow window of {@code DCGM_EXP_CLOCK_EVENTS_COUNT}
 * @param hostname               the node label, or empty with {@code DCGM_EXPORTER_NO_HOSTNAME}
 * @param replaceBlanksInModelName {@code NVIDIA A100-SXM4-80GB} becomes {@code NVIDIA-A100-SXM4-80GB}
 * @param useOldNamespace        dcgm-exporter 1.x's label names ({@code DCGM_EXPORTER_USE_OLD_NAMESPACE}):
 *                               {@code uuid}, {@code pod_name}, {@code pod_namespace}, {@code container_name}
 * @param nvml                   where NVML is loaded from ({@code KGPU_NVML_LIBRARY}, {@code NVIDIA_DRIVER_ROOT})
 * @param web                    TLS, basic auth, headers and rate limit from the exporter-toolkit web config file
 *                               ({@code --web-config-file}, {@code DCGM_EXPORTER_WEB_CONFIG_FILE}); empty without one
 * @param releaseStartupPages    whether a native exporter hands its start-up pages back after its first collection
 *                               ({@code KGPU_RELEASE_STARTUP_PAGES}, {@link ExecutablePages})
 */
public record ExporterConfig(
        CollectorsFile collectors,
        CounterSet counters,
        String listenHost,
        int listenPort,
        Duration interval,
        boolean kubernetes,
        Path podResourcesSocket,
        List<String> nvidiaResourceNames,
        GpuIdType gpuIdType,
        boolean virtualGpus,
        Duration xidCountWindow,
        Duration clockEventsCountWindow,
        Optional<HostnameLabel> hostname,
        boolean replaceBlanksInModelName,
        boolean useOldNamespace,
        NvmlOptions nvml,
        Optional<WebConfig> web,
        boolean releaseStartupPages) {

    /** The binary, in messages. */
    public static final String NAME = "kgpu-exporter";
    /** dcgm-exporter's default counters file; when absent on disk the built-in copy is used. */
    public static final Path DEFAULT_COLLECTORS = Path.of("/etc/dcgm-exporter/default-counters.csv");
    /** gpu-operator's counters file; when absent on disk the built-in copy is used. */
    public static final Path OPERATOR_COLLECTORS = Path.of("/etc/dcgm-exporter/dcp-metrics-included.csv");
    public static final Path DEFAULT_POD_RESOURCES_SOCKET = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");

    /** {@code DCGM_EXPORTER_LISTEN}: {@code [host]:port}. */
    record Listen(String host, int port) {
        static Listen parse(String text) {
            int colon = text.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("must be [host]:port, e.g. ':9400' or '127.0.0.1:9400'");
            }
            String host = text.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            try {
                int port = Integer.parseInt(text.substring(colon + 1).strip());
                if (port >= 0 && port <= 65535) {
                    return new Listen(host, port);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("must end in a port between 0 and 65535");
        }

        String text() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    static final Setting<String> COLLECTORS = Setting.of(List.of("collectors", "f"),
            List.of("DCGM_EXPORTER_COLLECTORS"), ValueType.string(), DEFAULT_COLLECTORS.toString(),
            "the counters file (a built-in copy stands in for dcgm-exporter's and the GPU operator's default paths)");
    static final Setting<Listen> ADDRESS = Setting.of(List.of("address", "a"), List.of("DCGM_EXPORTER_LISTEN"),
            ValueType.of("[host]:port", Listen::parse, Listen::text), new Listen("", 9400),
            "where /metrics is served");
    /**
     * The shortest collection interval: one collection of an 8-GPU node costs a few milliseconds of a core
     * (far more with PCIe throughput, which NVML samples for 20 ms per GPU and direction), and NVML's own
     * averages (utilisation, power) move every 100 ms to 1 s; dcgm-exporter's 1 ms would burn a core.
     */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(100);

    static final Setting<Duration> INTERVAL = Setting.of(List.of("collect-interval", "c"),
            List.of("DCGM_EXPORTER_INTERVAL"),
            ValueType.duration(ChronoUnit.MILLIS, (int) MIN_INTERVAL.toMillis(), Integer.MAX_VALUE),
            Duration.ofSeconds(30), "time between collections, in milliseconds");
    static final Setting<Boolean> KUBERNETES = Setting.of(List.of("kubernetes", "k"),
            List.of("DCGM_EXPORTER_KUBERNETES"), ValueType.bool(), false, "attribute series to the pods using the GPUs");
    static final Setting<String> POD_RESOURCES_SOCKET = Setting.of(List.of("pod-resources-kubelet-socket"),
            List.of("DCGM_POD_RESOURCES_KUBELET_SOCKET"), ValueType.of("path", socket -> {
                if (socket.isBlank()) {
                    throw new IllegalArgumentException("must name the kubelet's pod-resources socket");
                }
                return socket.strip();
            }, socket -> socket), DEFAULT_POD_RESOURCES_SOCKET.toString(), "the kubelet's pod-resources socket");
    static final Setting<List<String>> RESOURCE_NAMES = Setting.of(List.of("nvidia-resource-names"),
            List.of("NVIDIA_RESOURCE_NAMES"), ValueType.stringList(), List.of(),
            "more resource names that hold GPUs, besides nvidia.com/gpu and nvidia.com/mig-*");
    static final Setting<GpuIdType> GPU_ID_TYPE = Setting.of(List.of("kubernetes-gpu-id-type"),
            List.of("DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE"), ValueType.oneOf(GpuIdType.class), GpuIdType.UID,
            "how the device plugin names GPUs in pod resources: uid or device-name");
    static final Setting<Boolean> VIRTUAL_GPUS = Setting.of(List.of("kubernetes-virtual-gpus"),
            List.of("KUBERNETES_VIRTUAL_GPUS"), ValueType.bool(), false, "one series per pod sharing a GPU");
    static final Setting<Duration> XID_COUNT_WINDOW = Setting.of(List.of("xid-count-window-size", "x"),
            List.of("DCGM_EXPORTER_XID_COUNT_WINDOW_SIZE"), ValueType.duration(ChronoUnit.MILLIS, 1, Integer.MAX_VALUE),
            Duration.ofMinutes(5), "window of DCGM_EXP_XID_ERRORS_COUNT, in milliseconds");
    static final Setting<Duration> CLOCK_EVENTS_COUNT_WINDOW = Setting.of(List.of("clock-events-count-window-size"),
            List.of("DCGM_EXPORTER_CLOCK_EVENTS_COUNT_WINDOW_SIZE"),
            ValueType.duration(ChronoUnit.MILLIS, 1, Integer.MAX_VALUE), Duration.ofMinutes(5),
            "window of DCGM_EXP_CLOCK_EVENTS_COUNT, in milliseconds");
    static final Setting<Boolean> NO_HOSTNAME = Setting.of(List.of("no-hostname", "n"),
            List.of("DCGM_EXPORTER_NO_HOSTNAME"), ValueType.bool(), false, "leave the Hostname label out");
    static final Setting<String> HOSTNAME_LABEL = Setting.of(List.of("hostname-label"),
            List.of("KGPU_EXPORTER_HOSTNAME_LABEL"), ValueType.of("Hostname|hostname", name -> {
                if (!HostnameLabel.LEGACY.equals(name) && !HostnameLabel.CURRENT.equals(name)) {
                    throw new IllegalArgumentException("must be 'Hostname' (dcgm-exporter up to 4.8.2) or 'hostname'"
                            + " (4.8.3 and later)");
                }
                return name;
            }, name -> name), HostnameLabel.LEGACY, "kgpu: the node label's name");
    static final Setting<Boolean> REPLACE_BLANKS = Setting.of(List.of("replace-blanks-in-model-name"),
            List.of("DCGM_EXPORTER_REPLACE_BLANKS_IN_MODEL_NAME"), ValueType.bool(), false,
            "replace the blanks in modelName with '-'");
    static final Setting<Boolean> USE_OLD_NAMESPACE = Setting.of(List.of("use-old-namespace", "o"),
            List.of("DCGM_EXPORTER_USE_OLD_NAMESPACE"), ValueType.bool(), false,
            "dcgm-exporter 1.x label names: uuid, pod_name, pod_namespace, container_name");
    static final Setting<String> WEB_CONFIG_FILE = Setting.of(List.of("web-config-file"),
            List.of("DCGM_EXPORTER_WEB_CONFIG_FILE"), ValueType.string(), "",
            "exporter-toolkit web config: TLS, basic auth, headers, rate limit (none: plain HTTP)");
    static final Setting<String> NODE_NAME = Setting.of(List.of(), List.of("NODE_NAME"), ValueType.string(), "",
            "the node label's value; the host's name when unset");

    /** dcgm-exporter's flags and variables, in its order, then kgpu's. */
    static final List<Setting<?>> SETTINGS = List.of(COLLECTORS, ADDRESS, INTERVAL, KUBERNETES, POD_RESOURCES_SOCKET,
            RESOURCE_NAMES, GPU_ID_TYPE, VIRTUAL_GPUS, USE_OLD_NAMESPACE, XID_COUNT_WINDOW, CLOCK_EVENTS_COUNT_WINDOW,
            NO_HOSTNAME, REPLACE_BLANKS, WEB_CONFIG_FILE, NODE_NAME, HOSTNAME_LABEL, NvmlSettings.LIBRARY, NvmlSettings.DRIVER_ROOT,
            ExecutablePages.SETTING);

    public ExporterConfig {
        Objects.requireNonNull(collectors, "collectors");
        Objects.requireNonNull(counters, "counters");
        Objects.requireNonNull(listenHost, "listenHost");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(podResourcesSocket, "podResourcesSocket");
        nvidiaResourceNames = List.copyOf(nvidiaResourceNames);
        Objects.requireNonNull(gpuIdType, "gpuIdType");
        Objects.requireNonNull(xidCountWindow, "xidCountWindow");
        Objects.requireNonNull(clockEventsCountWindow, "clockEventsCountWindow");
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(nvml, "nvml");
        Objects.requireNonNull(web, "web");
        List<ValidationFailure> failures = new ArrayList<>();
        if (listenPort < 0 || listenPort > 65535) {
            failures.add(new ValidationFailure("DCGM_EXPORTER_LISTEN", ":" + listenPort, "must end in a port between 0 and 65535"));
        }
        if (interval.compareTo(MIN_INTERVAL) < 0) {
            failures.add(new ValidationFailure("DCGM_EXPORTER_INTERVAL", Long.toString(interval.toMillis()),
                    "must be a whole number of milliseconds, at least " + MIN_INTERVAL.toMillis()));
        }
        Map<String, Duration> windows = new LinkedHashMap<>();
        windows.put("DCGM_EXPORTER_XID_COUNT_WINDOW_SIZE", xidCountWindow);
        windows.put("DCGM_EXPORTER_CLOCK_EVENTS_COUNT_WINDOW_SIZE", clockEventsCountWindow);
        windows.forEach((name, duration) -> {
            if (duration.isNegative() || duration.isZero()) {
                failures.add(new ValidationFailure(name, Long.toString(duration.toMillis()),
                        "must be a positive whole number of milliseconds"));
            }
        });
        if (!failures.isEmpty()) {
            throw new InvalidConfigException(failures);
        }
    }

    /**
     * The counters file: a path on disk, or one of the files built into the exporter.
     *
     * @param path    what the user named (or the default path)
     * @param builtIn the built-in file read instead, when {@code path} is one of dcgm-exporter's default
     *                paths and does not exist on disk
     */
    public record CollectorsFile(Path path, Optional<String> builtIn) {
    }

    /** Reads every setting, and the counters file, once on this host: a flag wins over its variable, which wins over the default. */
    public static ExporterConfig load(String[] args, Function<String, String> environment) {
        return load(args, environment, HostNames::ofThisHost);
    }

    /**
     * Reads every setting and the counters file once.
     *
     * @param args        the command line, without the program name
     * @param environment reads one variable, null when unset ({@code System::getenv} in production)
     * @param hostName    the host's own name, the node label when {@code NODE_NAME} is unset; may give null
     * @throws UsageRequestedException after {@code --help}: print the message and exit 0
     * @throws InvalidConfigException  listing every bad setting (and a bad counters file): print it, exit 1
     */
    public static ExporterConfig load(String[] args, Function<String, String> environment, Supplier<String> hostName) {
        return new ConfigLoader<>(new ConfigLoader.Agent<>(NAME, SETTINGS, resolved -> {
            CollectorsFile collectors = collectors(resolved);
            CounterSet counters = counters(resolved, collectors);
            Optional<WebConfig> web = web(resolved);
            Optional<HostnameLabel> hostname = Optional.empty();
            if (!resolved.get(NO_HOSTNAME)) {
                String nodeName = resolved.get(NODE_NAME).strip();
                String name = nodeName.isEmpty() ? hostName.get() : nodeName;
                if (name == null || name.isBlank()) {
                    resolved.fail(NODE_NAME, nodeName, "must name the node when the host name cannot be read");
                } else {
                    hostname = Optional.of(new HostnameLabel(resolved.get(HOSTNAME_LABEL), name));
                }
            }
            if (counters == null) {
                return null;
            }
            Listen listen = resolved.get(ADDRESS);
            return new ExporterConfig(collectors, counters, listen.host(), listen.port(), resolved.get(INTERVAL),
                    resolved.get(KUBERNETES), Path.of(resolved.get(POD_RESOURCES_SOCKET)), resolved.get(RESOURCE_NAMES),
                    resolved.get(GPU_ID_TYPE), resolved.get(VIRTUAL_GPUS), resolved.get(XID_COUNT_WINDOW),
                    resolved.get(CLOCK_EVENTS_COUNT_WINDOW), hostname, resolved.get(REPLACE_BLANKS),
                    resolved.get(USE_OLD_NAMESPACE), NvmlSettings.options(resolved), web,
                    resolved.get(ExecutablePages.SETTING));
        }), args, environment).load();
    }

    /** The file named, or the built-in copy standing in for dcgm-exporter's and the operator's default paths. */
    private static CollectorsFile collectors(ConfigLoader.Resolved resolved) {
        Path path = Path.of(resolved.get(COLLECTORS).strip());
        if (!Files.exists(path) && (path.equals(DEFAULT_COLLECTORS) || path.equals(OPERATOR_COLLECTORS))) {
            return new CollectorsFile(path, Optional.of(path.getFileName().toString()));
        }
        return new CollectorsFile(path, Optional.empty());
    }

    /** The web config file named, read and checked; empty when none is named or after recording why it is bad. */
    private static Optional<WebConfig> web(ConfigLoader.Resolved resolved) {
        String path = resolved.get(WEB_CONFIG_FILE).strip();
        if (path.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(WebConfigFile.read(Path.of(path), resolved.property(WEB_CONFIG_FILE)));
        } catch (InvalidConfigException e) {
            resolved.fail(e.failures());
            return Optional.empty();
        }
    }

    /** The counters file's rows; null after recording why they could not be read. */
    private static CounterSet counters(ConfigLoader.Resolved resolved, CollectorsFile file) {
        try {
            return file.builtIn().isPresent() ? CountersFile.readBuiltIn(file.builtIn().get()) : CountersFile.read(file.path());
        } catch (CountersException e) {
            if (!Files.exists(file.path())) {
                resolved.fail(COLLECTORS, file.path().toString(), "names no file");
            } else if (e.unreadable()) {
                resolved.fail(COLLECTORS, file.path().toString(), e.failure().reason());
            } else {
                resolved.fail(List.of(e.failure()));
            }
            return null;
        }
    }

    /**
     * Reads the counters file {@code collectors} names again, as at start (SIGHUP). A static function, not a method
     * of the settings: the settings hold what was read, reading again is the caller's I/O.
     *
     * @throws InvalidConfigException naming the file, line and content of the first bad row, or why the file
     *                                cannot be read
     */
    public static CounterSet readCounters(CollectorsFile collectors) {
        try {
            return collectors.builtIn().isPresent() ? CountersFile.readBuiltIn(collectors.builtIn().get())
                    : CountersFile.read(collectors.path());
        } catch (CountersException e) {
            if (!Files.exists(collectors.path()) && collectors.builtIn().isEmpty()) {
                throw InvalidConfigException.of("DCGM_EXPORTER_COLLECTORS", collectors.path().toString(), "names no file");
            }
            throw new InvalidConfigException(e.unreadable()
                    ? new ValidationFailure("DCGM_EXPORTER_COLLECTORS", collectors.path().toString(), e.failure().reason())
                    : e.failure());
        }
    }

    /** The effective settings under dcgm-exporter's (and kgpu's) variable names, for the start-up log line. */
    public Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("DCGM_EXPORTER_COLLECTORS", collectors.path().toString());
        out.put("counters", counters.source());
        out.put("DCGM_EXPORTER_LISTEN", new Listen(listenHost, listenPort).text());
        out.put("DCGM_EXPORTER_INTERVAL", interval.toMillis());
        out.put("DCGM_EXPORTER_KUBERNETES", kubernetes);
        out.put("DCGM_POD_RESOURCES_KUBELET_SOCKET", podResourcesSocket.toString());
        out.put("NVIDIA_RESOURCE_NAMES", nvidiaResourceNames);
        out.put("DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE", gpuIdType.wireName());
        out.put("KUBERNETES_VIRTUAL_GPUS", virtualGpus);
        out.put("DCGM_EXPORTER_XID_COUNT_WINDOW_SIZE", xidCountWindow.toMillis());
        out.put("DCGM_EXPORTER_CLOCK_EVENTS_COUNT_WINDOW_SIZE", clockEventsCountWindow.toMillis());
        out.put("DCGM_EXPORTER_NO_HOSTNAME", hostname.isEmpty());
        out.put("DCGM_EXPORTER_REPLACE_BLANKS_IN_MODEL_NAME", replaceBlanksInModelName);
        out.put("DCGM_EXPORTER_USE_OLD_NAMESPACE", useOldNamespace);
        out.put("DCGM_EXPORTER_WEB_CONFIG_FILE", web.map(w -> w.source() + " (TLS " + (w.tls().isPresent() ? "on" : "off")
                + ", basic auth " + (w.basicAuth() ? "on" : "off") + ")").orElse(""));
        out.put("hostname", hostname.map(h -> h.name() + "=" + h.value()).orElse(""));
        out.put("KGPU_NVML_LIBRARY", nvml.library().map(Path::toString).orElse(""));
        out.put("NVIDIA_DRIVER_ROOT", nvml.driverRoot().toString());
        return out;
    }
}
