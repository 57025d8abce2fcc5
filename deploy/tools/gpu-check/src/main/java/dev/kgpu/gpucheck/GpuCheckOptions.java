package dev.kgpu.gpucheck;

import dev.kgpu.agent.settings.CommandLine;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The check's settings, from {@code --name=value} flags (the {@code run} script sets them), read by the agents'
 * shared {@link CommandLine}.
 *
 * @param root         where the packaged agents are: {@code <agent>/target/quarkus-app} and
 *                     {@code deploy/release/images/jvm.options} (the bundle, or a checkout)
 * @param out          the report folder
 * @param work         the work folder (sockets, the agents' files and logs); short, for Unix sockets
 * @param nvidiaSmi    nvidia-smi to compare with, or empty when the machine has none
 * @param agentJava    the {@code java} that runs the agents
 * @param steps        what to run after reading the node
 * @param timeout      the whole check's limit
 * @param readyTimeout the longest one agent may take to be ready
 * @param costTime     how long each nvml-ffm call is timed
 * @param mode         how the report names the run, e.g. {@code real GPU} or {@code mock dgx-h100}
 */
public record GpuCheckOptions(Path root, Path out, Path work, Optional<Path> nvidiaSmi, Path agentJava, Set<Step> steps,
                              Duration timeout, Duration readyTimeout, Duration costTime, String mode) {

    /** The parts of the check that may be chosen with {@code --steps}; the node is always read. */
    public enum Step {
        PLUGIN, DISCOVERY, EXPORTER, VALIDATOR, COST;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public GpuCheckOptions {
        steps = steps.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(steps));
    }

    /** Bad flags: one line per problem, {@code <flag> was '<value>' but it <reason>}. */
    public static final class OptionsException extends RuntimeException {
        private final List<String> problems;

        OptionsException(List<String> problems) {
            super(String.join("\n", problems));
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }

    /** The flags, in the {@code run} script's order. */
    private static final List<String> FLAGS = List.of("root", "out", "work", "nvidia-smi", "agent-java", "steps", "timeout",
            "ready-timeout", "cost-millis", "mode");

    public static GpuCheckOptions parse(List<String> args) {
        List<Setting<?>> settings = FLAGS.stream()
                .<Setting<?>>map(flag -> Setting.of(List.of(flag), List.of(), ValueType.string(), "", "gpu-check's --" + flag))
                .toList();
        CommandLine line = CommandLine.parse(args.toArray(String[]::new), settings, "gpu-check");
        List<String> problems = new ArrayList<>();
        for (CommandLine.Problem problem : line.problems()) {
            problems.add(switch (problem) {
                case CommandLine.Problem.UnknownFlag(String arg, String flag, String value) ->
                        flag + " was '" + value + "' but it is not a gpu-check flag (known: " + FLAGS + ")";
                default -> "argument was '" + problem.arg() + "' but it must be --name=value";
            });
        }
        Map<String, String> flags = new LinkedHashMap<>();
        for (Setting<?> setting : settings) {
            line.last(setting).ifPresent(value -> flags.put(setting.flags().getFirst(), value));
        }

        Path root = folder(flags, "root", problems, true);
        Path out = folder(flags, "out", problems, false);
        Path work = folder(flags, "work", problems, false);
        String smi = flags.getOrDefault("nvidia-smi", "none");
        Optional<Path> nvidiaSmi = smi.equals("none") ? Optional.empty() : Optional.of(Path.of(smi));
        if (nvidiaSmi.isPresent() && !Files.isExecutable(nvidiaSmi.get())) {
            problems.add("--nvidia-smi was '" + smi + "' but it must be an executable file or 'none'");
        }
        Path java = Path.of(flags.getOrDefault("agent-java", Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        if (!Files.isExecutable(java)) {
            problems.add("--agent-java was '" + java + "' but it must be an executable java");
        }
        Set<Step> steps = EnumSet.allOf(Step.class);
        String chosen = flags.getOrDefault("steps", "all");
        if (!chosen.equals("all")) {
            steps = EnumSet.noneOf(Step.class);
            for (String s : chosen.split(",")) {
                String name = s.strip();
                if (name.isEmpty() || name.equals("nvml")) {
                    continue;
                }
                try {
                    steps.add(Step.valueOf(name.toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    problems.add("--steps was '" + chosen + "' but '" + name
                            + "' is none of nvml, plugin, discovery, exporter, validator, cost, all");
                }
            }
        }
        Duration timeout = seconds(flags, "timeout", 420, 10, 3600, problems);
        Duration ready = seconds(flags, "ready-timeout", 90, 5, 600, problems);
        long costMillis = number(flags, "cost-millis", 1000, 10, 60_000, "milliseconds", problems);
        if (!problems.isEmpty()) {
            throw new OptionsException(problems);
        }
        return new GpuCheckOptions(root, out, work, nvidiaSmi, java, steps, timeout, ready, Duration.ofMillis(costMillis),
                flags.getOrDefault("mode", "real GPU"));
    }

    private static Path folder(Map<String, String> flags, String name, List<String> problems, boolean mustExist) {
        String value = flags.get(name);
        if (value == null || value.isBlank()) {
            problems.add("--" + name + " was '" + (value == null ? "" : value) + "' but it must name a folder");
            return Path.of(".");
        }
        Path path = Path.of(value).toAbsolutePath().normalize();
        if (mustExist && !Files.isDirectory(path)) {
            problems.add("--" + name + " was '" + value + "' but it must be an existing folder");
        }
        return path;
    }

    private static Duration seconds(Map<String, String> flags, String name, long fallback, long min, long max, List<String> problems) {
        return Duration.ofSeconds(number(flags, name, fallback, min, max, "seconds", problems));
    }

    private static long number(Map<String, String> flags, String name, long fallback, long min, long max, String unit,
                               List<String> problems) {
        String value = flags.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            long n = Long.parseLong(value.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problems.add("--" + name + " was '" + value + "' but it must be a whole number of " + unit + " from " + min + " to " + max);
        return fallback;
    }
}
