package dev.kgpu.simulator;

import dev.kgpu.agent.settings.CommandLine;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.simulator.agents.Agent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The simulated node's settings, validated. Each comes from a flag ({@code --profile=mig-mixed}), else from its
 * environment variable ({@code KGPU_SIM_PROFILE}, which the Maven profile fills from {@code -Dkgpu.profile}), else
 * its default. An empty variable counts as unset.
 *
 * @param root           the kgpu checkout: where the agents' apps, the mock NVML and its profiles are
 * @param profile        a mock NVML profile name ({@code dgx-a100}) or a path to a profile file
 * @param profileFile    the profile's file
 * @param nodeName       the Node's name
 * @param workDir        sockets, fake device nodes, logs, kubeconfig; wiped at start
 * @param migStrategy    {@code MIG_STRATEGY} for the plugin, discovery and the validator
 * @param deviceListStrategy {@code DEVICE_LIST_STRATEGY} for the plugin: {@code envvar}, {@code volume-mounts},
 *                       {@code cdi-annotations}, {@code cdi-cri} or a comma list of them
 * @param ports          HTTP port of each agent
 * @param timeout        how long each step may take to come up
 * @param exitWhenReady  stop after the summary instead of running until Ctrl-C
 * @param footprintRuns  0, or how many times footprint mode starts the agents
 * @param dra            the plugin also runs its DRA driver ({@code KGPU_KUBELET_APIS=device-plugin,dra}); the node's
 *                       scheduler allocates ResourceClaims, its kubelet prepares them through the driver, and the
 *                       validator's plugin component validates through a claim
 * @param sharing        {@code none}, or {@code mps}: every GPU shared {@value #MPS_REPLICAS} times with MPS
 *                       ({@code sharing.mps} in the agents' config file), the plugin's {@code mps-control-daemon} mode
 *                       running the daemons with the mock's fake {@code nvidia-cuda-mps-control}
 */
public record SimulatorOptions(Path root, String profile, Path profileFile, String nodeName, Path workDir,
                               String migStrategy, String deviceListStrategy, Map<Agent, Integer> ports, Duration timeout,
                               boolean exitWhenReady, int footprintRuns, boolean dra, String sharing) {

    /** How many MPS replicas each GPU gets with {@code --sharing=mps}. */
    public static final int MPS_REPLICAS = 4;

    /** Whether GPUs are shared with MPS ({@code --sharing=mps}). */
    public boolean mps() {
        return sharing.equals("mps");
    }

    public static final String DEFAULT_PROFILE = "dgx-a100";
    public static final String DEFAULT_NODE_NAME = "kgpu-sim-node";
    public static final String DEFAULT_MIG_STRATEGY = "none";
    public static final String DEFAULT_DEVICE_LIST_STRATEGY = "envvar";
    private static final Set<String> DEVICE_LIST_STRATEGIES = Set.of("envvar", "volume-mounts", "cdi-annotations", "cdi-cri");
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

    private static final Pattern NODE_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    public SimulatorOptions {
        ports = Map.copyOf(ports);
    }

    public int port(Agent agent) {
        return ports.get(agent);
    }

    /** Whether the plugin hands out CDI names ({@code cdi-annotations} or {@code cdi-cri}), and so writes a CDI spec. */
    public boolean cdi() {
        return List.of(deviceListStrategy.split(",")).stream().map(String::strip).anyMatch(s -> s.startsWith("cdi-"));
    }

    /** One option: its flag, its environment variable, what it takes. */
    private enum Option {
        ROOT("root", "KGPU_ROOT", "<dir>", "the kgpu checkout (default: found above the working directory)"),
        PROFILE("profile", "KGPU_SIM_PROFILE", "<name|file>", "mock NVML profile (default " + DEFAULT_PROFILE + ")"),
        NODE_NAME("node-name", "KGPU_SIM_NODE_NAME", "<name>", "the Node's name (default " + DEFAULT_NODE_NAME + ")"),
        WORK_DIR("work-dir", "KGPU_SIM_WORK_DIR", "<dir>", "sockets, logs, kubeconfig; wiped at start (default deploy/tools/simulator/target/simulated-node)"),
        MIG_STRATEGY("mig-strategy", "KGPU_SIM_MIG_STRATEGY", "none|single|mixed", "MIG_STRATEGY of the agents (default none, the plugin's default)"),
        DEVICE_LIST_STRATEGY("device-list-strategy", "KGPU_SIM_DEVICE_LIST_STRATEGY", "<strategies>",
                "DEVICE_LIST_STRATEGY of the plugin: envvar, volume-mounts, cdi-annotations, cdi-cri, comma-separated (default envvar)"),
        PLUGIN_PORT("plugin-port", "KGPU_SIM_PLUGIN_PORT", "<port>", "plugin's health port (default 8081)"),
        DISCOVERY_PORT("discovery-port", "KGPU_SIM_DISCOVERY_PORT", "<port>", "discovery's health port (default 8082)"),
        VALIDATOR_PORT("validator-port", "KGPU_SIM_VALIDATOR_PORT", "<port>", "validator's health port (default 8083)"),
        EXPORTER_PORT("exporter-port", "KGPU_SIM_EXPORTER_PORT", "<port>", "exporter's /metrics port (default 9400)"),
        TIMEOUT("timeout", "KGPU_SIM_TIMEOUT", "<seconds>", "how long each step may take to come up (default 120)"),
        EXIT_WHEN_READY("exit-when-ready", "KGPU_SIM_EXIT_WHEN_READY", "[true|false]", "stop after the summary; exit 1 if anything failed"),
        FOOTPRINT("footprint", "KGPU_SIM_FOOTPRINT", "<runs>", "start the agents <runs> times, print median start-to-ready and RSS"),
        DRA("dra", "KGPU_SIM_DRA", "[true|false]", "the plugin also runs its DRA driver gpu.nvidia.com; claims are allocated by CEL and prepared through it"),
        SHARING("sharing", "KGPU_SIM_SHARING", "none|mps", "mps: each GPU shared " + MPS_REPLICAS
                + " times with MPS, the plugin's mps-control-daemon mode running the daemons (default none)");

        final String flag;
        final String variable;
        final String argument;
        final String help;
        /** The flag and its variable for the shared {@link CommandLine}: a boolean one takes no value after it. */
        final Setting<?> setting;

        Option(String flag, String variable, String argument, String help) {
            this.flag = flag;
            this.variable = variable;
            this.argument = argument;
            this.help = help;
            this.setting = argument.equals("[true|false]")
                    ? Setting.of(List.of(flag), List.of(variable), ValueType.bool(), false, help)
                    : Setting.of(List.of(flag), List.of(variable), ValueType.string(), "", help);
        }

        String describe() {
            return "--" + flag;
        }
    }

    /** The usage text for {@code --help}. */
    public static String usage() {
        StringBuilder text = new StringBuilder("""
                Usage: simulated-node [options]
                Runs the four kgpu agents on a simulated GPU node (mock NVML, kubelet, scheduler, container
                runtime, Kubernetes API server) and prints where to look. Each option may also be given as its
                environment variable, or to Maven as -Dkgpu.<option>.

                """);
        for (Option option : Option.values()) {
            text.append(String.format("  --%-16s %-18s %s (%s)%n", option.flag, option.argument, option.help, option.variable));
        }
        return text.toString();
    }

    /** Whether the arguments ask for {@link #usage()}. */
    public static boolean wantsHelp(List<String> args) {
        return args.contains("--help") || args.contains("-h");
    }

    /**
     * Reads the options from {@code args} and {@code environment} ({@code System::getenv} in production).
     *
     * @param workingDirectory where a relative path is resolved and the checkout is looked for
     * @throws OptionsException with one line per bad value
     */
    public static SimulatorOptions parse(List<String> args, Function<String, String> environment, Path workingDirectory) {
        List<String> problems = new ArrayList<>();
        Map<Option, String> flags = flags(args, problems);
        Function<Option, Optional<String>> value = option -> Optional.ofNullable(flags.get(option))
                .or(() -> Optional.ofNullable(environment.apply(option.variable)).filter(v -> !v.isBlank()))
                .map(String::strip);

        Path root = root(value.apply(Option.ROOT), workingDirectory, problems);

        String profile = value.apply(Option.PROFILE).orElse(DEFAULT_PROFILE);
        Path profileFile = root == null ? null : profileFile(profile, root, workingDirectory, problems);

        String nodeName = value.apply(Option.NODE_NAME).orElse(DEFAULT_NODE_NAME);
        if (nodeName.length() > 253 || !NODE_NAME.matcher(nodeName).matches()) {
            problems.add("--node-name was '" + nodeName + "' but it must be a DNS subdomain: lower-case letters,"
                    + " digits, '-' and '.', at most 253 characters");
        }

        Path workDir = value.apply(Option.WORK_DIR).map(w -> workingDirectory.resolve(w).normalize())
                .orElseGet(() -> root == null ? null : root.resolve("deploy/tools/simulator/target/simulated-node"));

        String migStrategy = value.apply(Option.MIG_STRATEGY).orElse(DEFAULT_MIG_STRATEGY);
        if (!Set.of("none", "single", "mixed").contains(migStrategy)) {
            problems.add("--mig-strategy was '" + migStrategy + "' but it must be none, single or mixed");
        }

        String deviceListStrategy = value.apply(Option.DEVICE_LIST_STRATEGY).orElse(DEFAULT_DEVICE_LIST_STRATEGY);
        if (!List.of(deviceListStrategy.split(",")).stream().map(String::strip).allMatch(DEVICE_LIST_STRATEGIES::contains)) {
            problems.add("--device-list-strategy was '" + deviceListStrategy + "' but it must be envvar, volume-mounts,"
                    + " cdi-annotations or cdi-cri, or a comma list of them");
        }

        Map<Agent, Integer> ports = new LinkedHashMap<>();
        ports.put(Agent.PLUGIN, port(value, Option.PLUGIN_PORT, Agent.PLUGIN, problems));
        ports.put(Agent.DISCOVERY, port(value, Option.DISCOVERY_PORT, Agent.DISCOVERY, problems));
        ports.put(Agent.EXPORTER, port(value, Option.EXPORTER_PORT, Agent.EXPORTER, problems));
        ports.put(Agent.VALIDATOR, port(value, Option.VALIDATOR_PORT, Agent.VALIDATOR, problems));
        if (new HashSet<>(ports.values()).size() < ports.size()) {
            problems.add("the agents' ports were " + ports.values() + " but they must all differ");
        }

        int timeoutSeconds = integer(value, Option.TIMEOUT, (int) DEFAULT_TIMEOUT.toSeconds(), 5, 3600, problems);
        boolean exitWhenReady = bool(value, Option.EXIT_WHEN_READY, problems);
        int footprint = integer(value, Option.FOOTPRINT, 0, 1, 100, problems);
        boolean dra = bool(value, Option.DRA, problems);
        String sharing = value.apply(Option.SHARING).orElse("none");
        if (!Set.of("none", "mps").contains(sharing)) {
            problems.add("--sharing was '" + sharing + "' but it must be none or mps");
        }

        if (!problems.isEmpty()) {
            throw new OptionsException(problems);
        }
        return new SimulatorOptions(root, profile, profileFile, nodeName, workDir, migStrategy, deviceListStrategy, ports,
                Duration.ofSeconds(timeoutSeconds), exitWhenReady, footprint, dra, sharing);
    }

    private static Path root(Optional<String> given, Path workingDirectory, List<String> problems) {
        if (given.isEmpty()) {
            Optional<Path> found = findRoot(workingDirectory);
            if (found.isEmpty()) {
                problems.add("--root was '' but it must name the kgpu checkout: no folder above " + workingDirectory
                        + " holds pom.xml and nvml-ffm/nvml/mock (run from the checkout or pass --root)");
            }
            return found.orElse(null);
        }
        Path root = workingDirectory.resolve(given.get()).normalize();
        if (!Files.isRegularFile(root.resolve("pom.xml")) || !Files.isDirectory(root.resolve("nvml-ffm/nvml/mock"))) {
            problems.add("--root was '" + given.get() + "' but it must be the kgpu checkout (pom.xml and nvml-ffm/nvml/mock in it)");
            return null;
        }
        return root;
    }

    /** The options given as flags, read by the shared {@link CommandLine}; what it cannot read, in the simulator's words. */
    private static Map<Option, String> flags(List<String> args, List<String> problems) {
        CommandLine line = CommandLine.parse(args.toArray(String[]::new),
                Stream.of(Option.values()).<Setting<?>>map(o -> o.setting).toList(), "kgpu-sim");
        for (CommandLine.Problem problem : line.problems()) {
            problems.add(switch (problem) {
                case CommandLine.Problem.Stray(String arg) ->
                        "argument was '" + arg + "' but it must be an option such as --profile=rtx3060 (see --help)";
                case CommandLine.Problem.UnknownFlag(String arg, String flag, String value) -> unknown(flag);
                case CommandLine.Problem.BadSyntax(String arg) -> unknown(arg);
                case CommandLine.Problem.MissingValue(String arg, Setting<?> setting) -> {
                    Option option = Stream.of(Option.values()).filter(o -> o.setting == setting).findFirst().orElseThrow();
                    yield option.describe() + " was '' but it needs a value: " + option.argument;
                }
            });
        }
        Map<Option, String> flags = new LinkedHashMap<>();
        for (Option option : Option.values()) {
            line.last(option.setting).ifPresent(value -> flags.put(option, value));
        }
        return flags;
    }

    private static String unknown(String flag) {
        return "option was '" + flag + "' but it must be one of "
                + Stream.of(Option.values()).map(Option::describe).toList() + " (see --help)";
    }

    /** The checkout: the nearest folder at or above {@code start} with pom.xml and nvml-ffm/nvml/mock. */
    static Optional<Path> findRoot(Path start) {
        for (Path dir = start.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("nvml-ffm/nvml/mock"))) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    private static Path profileFile(String profile, Path root, Path workingDirectory, List<String> problems) {
        Path profiles = root.resolve("nvml-ffm/nvml/mock/profiles");
        if (profile.contains("/") || profile.endsWith(".json")) {
            Path file = workingDirectory.resolve(profile).normalize();
            if (!Files.isRegularFile(file)) {
                problems.add("--profile was '" + profile + "' but no such file exists");
                return null;
            }
            return file;
        }
        Path file = profiles.resolve(profile + ".json");
        if (!Files.isRegularFile(file)) {
            problems.add("--profile was '" + profile + "' but it must name a profile in " + profiles + " ("
                    + String.join(", ", shippedProfiles(profiles)) + ") or a .json file");
            return null;
        }
        return file;
    }

    private static List<String> shippedProfiles(Path profiles) {
        try (Stream<Path> files = Files.list(profiles)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - ".json".length())).sorted().toList();
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    private static int port(Function<Option, Optional<String>> value, Option option, Agent agent, List<String> problems) {
        return integer(value, option, agent.defaultPort(), 1, 65535, problems);
    }

    private static int integer(Function<Option, Optional<String>> value, Option option, int defaultValue, int min, int max,
                               List<String> problems) {
        Optional<String> text = value.apply(option);
        if (text.isEmpty()) {
            return defaultValue;
        }
        try {
            int parsed = Integer.parseInt(text.get());
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problems.add(option.describe() + " was '" + text.get() + "' but it must be a whole number from " + min + " to " + max);
        return defaultValue;
    }

    private static boolean bool(Function<Option, Optional<String>> value, Option option, List<String> problems) {
        Optional<String> text = value.apply(option);
        if (text.isEmpty()) {
            return false;
        }
        return switch (text.get()) {
            case "true" -> true;
            case "false" -> false;
            default -> {
                problems.add(option.describe() + " was '" + text.get() + "' but it must be true or false");
                yield false;
            }
        };
    }

    /** Bad options: one line per problem, each naming the option and its value. */
    public static final class OptionsException extends RuntimeException {
        private final List<String> problems;

        OptionsException(List<String> problems) {
            super(String.join("; ", problems));
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }
}
