package dev.kgpu.exporter.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Reads {@link ExporterConfig} from the command line, then the environment, then defaults (first found
 * wins), with dcgm-exporter's flag and variable names. Every bad value is reported, not only the first.
 * The environment arrives as a function ({@code System::getenv} in production) so tests never touch
 * the real one.
 */
public final class ExporterConfigLoader {

    /** dcgm-exporter's default counters file; when absent on disk the built-in copy is used. */
    public static final Path DEFAULT_COLLECTORS = Path.of("/etc/dcgm-exporter/default-counters.csv");
    /** gpu-operator's counters file; when absent on disk the built-in copy is used. */
    public static final Path OPERATOR_COLLECTORS = Path.of("/etc/dcgm-exporter/dcp-metrics-included.csv");
    public static final Path DEFAULT_POD_RESOURCES_SOCKET = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");

    /** One setting: its long flag, short flag (or null), environment variable and default. */
    record Option(String flag, String shortFlag, String env, boolean bool, String defaultValue) {
    }

    static final Option COLLECTORS = new Option("collectors", "f", "DCGM_EXPORTER_COLLECTORS", false,
            DEFAULT_COLLECTORS.toString());
    static final Option ADDRESS = new Option("address", "a", "DCGM_EXPORTER_LISTEN", false, ":9400");
    static final Option INTERVAL = new Option("collect-interval", "c", "DCGM_EXPORTER_INTERVAL", false, "30000");
    static final Option KUBERNETES = new Option("kubernetes", "k", "DCGM_EXPORTER_KUBERNETES", true, "false");
    static final Option SOCKET = new Option("pod-resources-kubelet-socket", null,
            "DCGM_POD_RESOURCES_KUBELET_SOCKET", false, DEFAULT_POD_RESOURCES_SOCKET.toString());
    static final Option RESOURCE_NAMES = new Option("nvidia-resource-names", null, "NVIDIA_RESOURCE_NAMES", false, "");
    static final Option GPU_ID_TYPE = new Option("kubernetes-gpu-id-type", null,
            "DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE", false, "uid");
    static final Option VIRTUAL_GPUS = new Option("kubernetes-virtual-gpus", null, "KUBERNETES_VIRTUAL_GPUS", true,
            "false");
    static final Option XID_WINDOW = new Option("xid-count-window-size", "x", "DCGM_EXPORTER_XID_COUNT_WINDOW_SIZE",
            false, "300000");
    static final Option CLOCK_WINDOW = new Option("clock-events-count-window-size", null,
            "DCGM_EXPORTER_CLOCK_EVENTS_COUNT_WINDOW_SIZE", false, "300000");
    static final Option NO_HOSTNAME = new Option("no-hostname", "n", "DCGM_EXPORTER_NO_HOSTNAME", true, "false");
    static final Option HOSTNAME_LABEL = new Option("hostname-label", null, "KGPU_EXPORTER_HOSTNAME_LABEL", false,
            HostnameLabel.LEGACY);
    static final Option REPLACE_BLANKS = new Option("replace-blanks-in-model-name", null,
            "DCGM_EXPORTER_REPLACE_BLANKS_IN_MODEL_NAME", true, "false");

    static final List<Option> OPTIONS = List.of(COLLECTORS, ADDRESS, INTERVAL, KUBERNETES, SOCKET, RESOURCE_NAMES,
            GPU_ID_TYPE, VIRTUAL_GPUS, XID_WINDOW, CLOCK_WINDOW, NO_HOSTNAME, HOSTNAME_LABEL, REPLACE_BLANKS);

    private final Function<String, String> environment;
    private final Supplier<String> hostName;
    private final Predicate<Path> fileExists;

    /**
     * @param environment reads one environment variable (null when unset)
     * @param hostName    the host's own name, used when {@code NODE_NAME} is unset
     * @param fileExists  whether a counters file exists on disk
     */
    public ExporterConfigLoader(Function<String, String> environment, Supplier<String> hostName,
                                Predicate<Path> fileExists) {
        this.environment = environment;
        this.hostName = hostName;
        this.fileExists = fileExists;
    }

    /** The host's own name (the kernel's, else the resolver's), or null. */
    public static String hostName() {
        return HostNames.ofThisHost();
    }

    /** A loader over the process environment and file system. */
    public static ExporterConfigLoader forProcess() {
        return new ExporterConfigLoader(System::getenv, HostNames::ofThisHost, Files::exists);
    }

    public ExporterConfig load(String... args) {
        List<String> problems = new ArrayList<>();
        Map<Option, String> flags = parseArgs(args, problems);
        Function<Option, Setting> value = option -> {
            if (flags.containsKey(option)) {
                return new Setting((option.shortFlag == null ? "--" : "-" + option.shortFlag + "/--") + option.flag,
                        flags.get(option));
            }
            String env = environment.apply(option.env);
            if (env != null) {
                return new Setting(option.env, env);
            }
            return new Setting(option.env, option.defaultValue);
        };

        Setting collectors = value.apply(COLLECTORS);
        Path collectorsPath = Path.of(collectors.value.strip());
        Optional<String> builtIn = Optional.empty();
        if (!fileExists.test(collectorsPath)) {
            if (collectorsPath.equals(DEFAULT_COLLECTORS) || collectorsPath.equals(OPERATOR_COLLECTORS)) {
                builtIn = Optional.of(collectorsPath.getFileName().toString());
            } else {
                problems.add(collectors.problem("names no file"));
            }
        }

        Setting address = value.apply(ADDRESS);
        String host = "";
        int port = 9400;
        int colon = address.value.lastIndexOf(':');
        if (colon < 0) {
            problems.add(address.problem("must be [host]:port, e.g. ':9400' or '127.0.0.1:9400'"));
        } else {
            host = address.value.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            port = (int) parseInt(address, address.value.substring(colon + 1), 0, 65535, problems,
                    "must end in a port between 0 and 65535");
        }

        long intervalMs = parseInt(value.apply(INTERVAL), value.apply(INTERVAL).value, 1, Integer.MAX_VALUE,
                problems, "must be a positive number of milliseconds");
        boolean kubernetes = parseBool(value.apply(KUBERNETES), problems);
        Setting socket = value.apply(SOCKET);
        if (socket.value.isBlank()) {
            problems.add(socket.problem("must name the kubelet's pod-resources socket"));
        }
        List<String> resourceNames = Arrays.stream(value.apply(RESOURCE_NAMES).value.split(","))
                .map(String::strip).filter(s -> !s.isEmpty()).toList();
        Setting idType = value.apply(GPU_ID_TYPE);
        GpuIdType gpuIdType = GpuIdType.fromFlag(idType.value.strip().toLowerCase(Locale.ROOT));
        if (gpuIdType == null) {
            problems.add(idType.problem("must be 'uid' or 'device-name'"));
            gpuIdType = GpuIdType.UID;
        }
        boolean virtualGpus = parseBool(value.apply(VIRTUAL_GPUS), problems);
        long xidWindow = parseInt(value.apply(XID_WINDOW), value.apply(XID_WINDOW).value, 1, Integer.MAX_VALUE,
                problems, "must be a positive number of milliseconds");
        long clockWindow = parseInt(value.apply(CLOCK_WINDOW), value.apply(CLOCK_WINDOW).value, 1,
                Integer.MAX_VALUE, problems, "must be a positive number of milliseconds");
        boolean noHostname = parseBool(value.apply(NO_HOSTNAME), problems);
        Setting labelName = value.apply(HOSTNAME_LABEL);
        String hostnameLabel = labelName.value.strip();
        if (!HostnameLabel.LEGACY.equals(hostnameLabel) && !HostnameLabel.CURRENT.equals(hostnameLabel)) {
            problems.add(labelName.problem("must be 'Hostname' (dcgm-exporter up to 4.8.2) or 'hostname' (4.8.3 and later)"));
            hostnameLabel = HostnameLabel.LEGACY;
        }
        boolean replaceBlanks = parseBool(value.apply(REPLACE_BLANKS), problems);

        Optional<HostnameLabel> hostname = Optional.empty();
        if (!noHostname) {
            String nodeName = environment.apply("NODE_NAME");
            String name = nodeName != null && !nodeName.isBlank() ? nodeName.strip() : hostName.get();
            if (name == null || name.isBlank()) {
                problems.add("NODE_NAME was '' but it must name the node when the host name cannot be read");
            } else {
                hostname = Optional.of(new HostnameLabel(hostnameLabel, name));
            }
        }

        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new ExporterConfig(new ExporterConfig.CollectorsFile(collectorsPath, builtIn), host, port,
                Duration.ofMillis(intervalMs), kubernetes, Path.of(socket.value.strip()), resourceNames, gpuIdType,
                virtualGpus, Duration.ofMillis(xidWindow), Duration.ofMillis(clockWindow), hostname, replaceBlanks);
    }

    /** Where a value came from (flag or variable name) and the value. */
    private record Setting(String source, String value) {
        String problem(String reason) {
            return source + " was '" + value + "' but it " + reason;
        }
    }

    private static long parseInt(Setting setting, String text, long min, long max, List<String> problems,
                                 String reason) {
        try {
            long parsed = Long.parseLong(text.strip());
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problems.add(setting.problem(reason));
        return min;
    }

    private static boolean parseBool(Setting setting, List<String> problems) {
        String text = setting.value.strip().toLowerCase(Locale.ROOT);
        return switch (text) {
            case "true", "1", "t", "yes" -> true;
            case "false", "0", "f", "no", "" -> false;
            default -> {
                problems.add(setting.problem("must be true or false"));
                yield false;
            }
        };
    }

    private static Map<Option, String> parseArgs(String[] args, List<String> problems) {
        Map<Option, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("-") || arg.equals("-") || arg.equals("--")) {
                problems.add("argument " + (i + 1) + " was '" + arg + "' but it is not a flag of the exporter");
                continue;
            }
            String name = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
            String inline = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                inline = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            Option option = null;
            for (Option candidate : OPTIONS) {
                if (candidate.flag.equals(name) || name.equals(candidate.shortFlag)) {
                    option = candidate;
                }
            }
            if (option == null) {
                problems.add("argument " + (i + 1) + " was '" + arg + "' but it is not a flag of the exporter");
                continue;
            }
            if (inline != null) {
                values.put(option, inline);
            } else if (option.bool) {
                values.put(option, "true");
            } else if (i + 1 < args.length) {
                values.put(option, args[++i]);
            } else {
                problems.add("argument " + (i + 1) + " was '" + arg + "' but it needs a value");
            }
        }
        return values;
    }
}
