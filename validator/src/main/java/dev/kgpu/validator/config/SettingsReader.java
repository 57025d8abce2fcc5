package dev.kgpu.validator.config;

import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.DriverRoots;
import dev.kgpu.validator.core.MigStrategy;
import dev.kgpu.validator.core.SamplePod;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads {@link ValidatorSettings} from command-line flags and the environment, flags winning, with NVIDIA's
 * names and defaults (gpu-operator {@code cmd/nvidia-validator/main.go}) plus kgpu's own {@code KGPU_*}
 * settings. Every problem is collected and reported at once as
 * {@code <property> was '<value>' but it <reason>}.
 *
 * <p>The environment arrives as a function ({@code System::getenv} in production) so tests never touch
 * the real one.
 */
public final class SettingsReader {

    public static final String DEFAULT_OUTPUT_DIR = "/run/nvidia/validations";
    public static final String DEFAULT_CUDA_SAMPLE_IMAGE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0";
    public static final int DEFAULT_SLEEP_INTERVAL_SECONDS = 5;
    public static final int DEFAULT_PLUGIN_WAIT_TRIES = 30;
    public static final int DEFAULT_POD_WAIT_TRIES = 60;
    public static final int DEFAULT_REVALIDATE_INTERVAL_SECONDS = 300;

    /** Flag name (long, and NVIDIA's short alias) for each environment variable. */
    private static final Map<String, List<String>> FLAGS = Map.ofEntries(
            Map.entry("COMPONENT", List.of("--component", "-c")),
            Map.entry("NODE_NAME", List.of("--node-name", "-n")),
            Map.entry("OPERATOR_NAMESPACE", List.of("--namespace", "-ns")),
            Map.entry("OUTPUT_DIR", List.of("--output-dir", "-o")),
            Map.entry("WITH_WAIT", List.of("--with-wait", "-w")),
            Map.entry("WITH_WORKLOAD", List.of("--with-workload", "-l")),
            Map.entry("CLEANUP_ALL", List.of("--cleanup-all", "-r")),
            Map.entry("SLEEP_INTERVAL_SECONDS", List.of("--sleep-interval-seconds", "-s")),
            Map.entry("MIG_STRATEGY", List.of("--mig-strategy", "-m")),
            Map.entry("NVIDIA_DRIVER_ROOT", List.of("--driver-root")),
            Map.entry("NVIDIA_DEV_ROOT", List.of("--dev-root")),
            Map.entry("KGPU_VALIDATOR_MODE", List.of("--mode")),
            Map.entry("KGPU_CUDA_SAMPLE_IMAGE", List.of("--cuda-sample-image")),
            Map.entry("KGPU_CDI_SPEC_DIR", List.of("--cdi-spec-dir")));
    private static final Set<String> BOOLEAN_FLAGS = Set.of("WITH_WAIT", "WITH_WORKLOAD", "CLEANUP_ALL");
    private static final Set<String> PULL_POLICIES = Set.of("Always", "IfNotPresent", "Never");

    private final Map<String, String> values = new HashMap<>();
    private final List<String> problems = new ArrayList<>();

    private SettingsReader(Function<String, String> environment, List<String> args) {
        Map<String, String> fromFlags = parseFlags(args);
        for (String name : List.of("COMPONENT", "NODE_NAME", "OPERATOR_NAMESPACE", "NAMESPACE", "OUTPUT_DIR",
                "WITH_WAIT", "WITH_WORKLOAD", "CLEANUP_ALL", "SLEEP_INTERVAL_SECONDS", "MIG_STRATEGY",
                "NVIDIA_DRIVER_ROOT", "DRIVER_ROOT_CTR_PATH", "NVIDIA_DEV_ROOT", "DEV_ROOT_CTR_PATH",
                "VALIDATOR_IMAGE", "VALIDATOR_IMAGE_PULL_POLICY", "VALIDATOR_IMAGE_PULL_SECRETS",
                "VALIDATOR_RUNTIME_CLASS", "KGPU_VALIDATOR_MODE", "KGPU_REVALIDATE_INTERVAL_SECONDS",
                "KGPU_CUDA_SAMPLE_IMAGE", "KGPU_CDI_SPEC_DIR", "KGPU_SIMULATED_DEVICE_NODES",
                "KGPU_PLUGIN_WAIT_TRIES", "KGPU_POD_WAIT_TRIES")) {
            String value = fromFlags.containsKey(name) ? fromFlags.get(name) : environment.apply(name);
            if (value != null && !value.isBlank()) {
                values.put(name, value.strip());
            }
        }
    }

    /**
     * Reads and validates the settings.
     *
     * @throws SettingsException listing every problem
     */
    public static ValidatorSettings read(Function<String, String> environment, List<String> args) {
        return new SettingsReader(environment, args).build();
    }

    private ValidatorSettings build() {
        List<Component> components = components();
        Mode mode = choice("KGPU_VALIDATOR_MODE", "oneshot", Map.of("oneshot", Mode.ONESHOT, "daemon", Mode.DAEMON));
        String nodeName = text("NODE_NAME", "");
        String namespace = values.containsKey("OPERATOR_NAMESPACE") ? text("OPERATOR_NAMESPACE", "")
                : text("NAMESPACE", "");
        Path outputDir = path("OUTPUT_DIR", DEFAULT_OUTPUT_DIR);
        boolean withWait = bool("WITH_WAIT", false);
        boolean withWorkload = bool("WITH_WORKLOAD", true);
        boolean cleanupAll = bool("CLEANUP_ALL", false);
        int sleepSeconds = integer("SLEEP_INTERVAL_SECONDS", DEFAULT_SLEEP_INTERVAL_SECONDS, 1, 300,
                "must be a whole number of seconds from 1 to 300");
        int pluginTries = integer("KGPU_PLUGIN_WAIT_TRIES", DEFAULT_PLUGIN_WAIT_TRIES, 1, 10_000,
                "must be a whole number from 1 to 10000");
        int podTries = integer("KGPU_POD_WAIT_TRIES", DEFAULT_POD_WAIT_TRIES, 1, 10_000,
                "must be a whole number from 1 to 10000");
        int revalidateSeconds = integer("KGPU_REVALIDATE_INTERVAL_SECONDS", DEFAULT_REVALIDATE_INTERVAL_SECONDS,
                10, 86_400, "must be a whole number of seconds from 10 to 86400");
        MigStrategy migStrategy = MigStrategy.byId(text("MIG_STRATEGY", "single")).orElseGet(() -> {
            problem("MIG_STRATEGY", "must be one of none, single, mixed");
            return MigStrategy.SINGLE;
        });
        DriverRoots roots = roots();
        Optional<Path> cdiSpecDir = values.containsKey("KGPU_CDI_SPEC_DIR")
                ? Optional.of(path("KGPU_CDI_SPEC_DIR", "")) : Optional.empty();
        boolean simulated = bool("KGPU_SIMULATED_DEVICE_NODES", false);
        SamplePod samplePod = samplePod();

        boolean needsCluster = components.contains(Component.PLUGIN) || components.contains(Component.CUDA);
        if (needsCluster && nodeName.isEmpty()) {
            problems.add("NODE_NAME was '' but it must name this node for the plugin and cuda components"
                    + " (set it from the pod's spec.nodeName)");
        }
        if (needsCluster && namespace.isEmpty()) {
            problems.add("OPERATOR_NAMESPACE was '' but it must name the namespace for sample pods when"
                    + " validating plugin or cuda (NAMESPACE is read too)");
        }
        if (!problems.isEmpty()) {
            throw new SettingsException(problems);
        }
        return new ValidatorSettings(components, mode, nodeName, namespace, outputDir, withWait, withWorkload,
                cleanupAll, Duration.ofSeconds(sleepSeconds), pluginTries, podTries,
                Duration.ofSeconds(revalidateSeconds), migStrategy, roots, cdiSpecDir, simulated, samplePod,
                Optional.ofNullable(values.get("VALIDATOR_IMAGE")));
    }

    private List<Component> components() {
        String raw = values.get("COMPONENT");
        if (raw == null || raw.equalsIgnoreCase("all")) {
            return List.of(Component.values());
        }
        Set<Component> chosen = new LinkedHashSet<>();
        for (String part : raw.split(",")) {
            Optional<Component> component = Component.byId(part);
            if (component.isEmpty()) {
                problem("COMPONENT", "must be driver, toolkit, plugin, cuda, a comma-separated list of them, or all");
                return List.of(Component.values());
            }
            chosen.add(component.get());
        }
        // Always in dependency order, whatever order the user wrote.
        return Arrays.stream(Component.values()).filter(chosen::contains).toList();
    }

    private DriverRoots roots() {
        String driverRoot = absolute("NVIDIA_DRIVER_ROOT", "/");
        String driverRootCtr = values.containsKey("DRIVER_ROOT_CTR_PATH") ? absolute("DRIVER_ROOT_CTR_PATH", "/")
                : driverRoot.equals("/") ? "/host" : "/run/nvidia/driver";
        String devRoot = absolute("NVIDIA_DEV_ROOT", "/");
        String devRootCtr = values.containsKey("DEV_ROOT_CTR_PATH") ? absolute("DEV_ROOT_CTR_PATH", "/")
                : devRoot.equals(driverRoot) ? driverRootCtr : devRoot.equals("/") ? "/host" : devRoot;
        return new DriverRoots(driverRoot, driverRootCtr, devRoot, devRootCtr);
    }

    private SamplePod samplePod() {
        String image = text("KGPU_CUDA_SAMPLE_IMAGE", DEFAULT_CUDA_SAMPLE_IMAGE);
        if (image.chars().anyMatch(Character::isWhitespace)) {
            problem("KGPU_CUDA_SAMPLE_IMAGE", "must be an image reference without spaces");
        }
        Optional<String> pullPolicy = Optional.ofNullable(values.get("VALIDATOR_IMAGE_PULL_POLICY"));
        if (pullPolicy.isPresent() && !PULL_POLICIES.contains(pullPolicy.get())) {
            problem("VALIDATOR_IMAGE_PULL_POLICY", "must be Always, IfNotPresent or Never");
        }
        List<String> secrets = Optional.ofNullable(values.get("VALIDATOR_IMAGE_PULL_SECRETS"))
                .map(s -> Arrays.stream(s.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList())
                .orElse(List.of());
        return new SamplePod(image, pullPolicy, secrets, Optional.ofNullable(values.get("VALIDATOR_RUNTIME_CLASS")));
    }

    private String text(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    private Path path(String name, String fallback) {
        String value = text(name, fallback);
        if (!value.startsWith("/")) {
            problem(name, "must be an absolute path");
        }
        return Path.of(value);
    }

    private String absolute(String name, String fallback) {
        return path(name, fallback).normalize().toString();
    }

    private boolean bool(String name, boolean fallback) {
        String value = values.get(name);
        if (value == null) {
            return fallback;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> {
                problem(name, "must be true or false");
                yield fallback;
            }
        };
    }

    private int integer(String name, int fallback, int min, int max, String rule) {
        String value = values.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problem(name, rule);
        return fallback;
    }

    private <T> T choice(String name, String fallback, Map<String, T> choices) {
        String value = text(name, fallback).toLowerCase(Locale.ROOT);
        T chosen = choices.get(value);
        if (chosen == null) {
            problem(name, "must be one of " + String.join(", ", choices.keySet().stream().sorted().toList()));
            return choices.get(fallback);
        }
        return chosen;
    }

    private void problem(String name, String reason) {
        problems.add(name + " was '" + values.getOrDefault(name, "") + "' but it " + reason);
    }

    private Map<String, String> parseFlags(List<String> args) {
        Map<String, String> aliases = new HashMap<>();
        FLAGS.forEach((env, names) -> names.forEach(flag -> aliases.put(flag, env)));
        Map<String, String> result = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String flag = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            String env = aliases.get(flag);
            if (env == null) {
                problems.add("argument " + (i + 1) + " was '" + arg + "' but it is not a known flag (known: "
                        + String.join(", ", FLAGS.values().stream().map(List::getFirst).sorted().toList()) + ")");
                continue;
            }
            if (arg.contains("=")) {
                result.put(env, arg.substring(arg.indexOf('=') + 1));
            } else if (BOOLEAN_FLAGS.contains(env)
                    && (i + 1 == args.size() || args.get(i + 1).startsWith("-"))) {
                result.put(env, "true");
            } else if (i + 1 < args.size()) {
                result.put(env, args.get(++i));
            } else {
                problems.add("argument " + (i + 1) + " was '" + arg + "' but it needs a value");
            }
        }
        return result;
    }
}
