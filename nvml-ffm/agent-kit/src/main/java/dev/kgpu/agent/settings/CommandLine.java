package dev.kgpu.agent.settings;

import dev.kgpu.config.ValidationFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The command line as Go's {@code flag} package (under NVIDIA's urfave/cli) reads it, for every agent and every
 * tool: {@code -name} or {@code --name} for any flag, long or short; a value as {@code --name=value} or as the
 * next argument; a boolean as {@code --name} (true) or {@code --name=false}. A boolean flag never takes the
 * next argument as its value, as in urfave/cli: {@code --oneshot false} is {@code --oneshot} followed by the
 * argument {@code false}. No agent or tool takes arguments, so unlike Go, where such an argument is silently
 * ignored (and {@code --oneshot false} quietly means {@code --oneshot=true}), a stray argument is a
 * {@link Problem}. {@code -h} and {@code --help} ask for the usage text.
 *
 * <p>Agents read it through {@link ConfigLoader}, which words its problems as {@link #failures()}. A tool (the
 * simulated node, gpu-check, the benchmarks) parses with the same rules and words the {@link #problems()} its
 * own way:
 *
 * <pre>{@code
 * static final Setting<String> PROFILE = Setting.of(List.of("profile"), List.of("KGPU_SIM_PROFILE"), ValueType.string(),
 *         "dgx-a100", "mock NVML profile");
 * CommandLine line = CommandLine.parse(args, List.of(PROFILE, ...), "kgpu-sim");
 * line.problems().forEach(problem -> problems.add(switch (problem) { ... }));
 * String profile = line.last(PROFILE).orElse("dgx-a100");
 * }</pre>
 *
 * @param values        every occurrence of each setting's flags, in order
 * @param problems      what could not be read, in the order of the arguments
 * @param helpRequested whether {@code -h} or {@code --help} was given
 * @param binary        the agent or tool, in {@link #failures()}' words
 */
public record CommandLine(Map<Setting<?>, List<Occurrence>> values, List<Problem> problems, boolean helpRequested,
                          String binary) {

    /** One {@code --name=value}: the flag as written (for messages) and its value. */
    public record Occurrence(String flag, String value) {
    }

    /** An argument that could not be read. */
    public sealed interface Problem {

        /** The argument as given. */
        String arg();

        /** Not a flag at all: the command line holds only flags. */
        record Stray(String arg) implements Problem {
        }

        /**
         * A flag no setting has.
         *
         * @param flag  as written, without its value: {@code --speed}
         * @param value what followed {@code =}, else empty
         */
        record UnknownFlag(String arg, String flag, String value) implements Problem {
        }

        /** The last argument is a flag that takes a value, and none follows. */
        record MissingValue(String arg, Setting<?> setting) implements Problem {
        }

        /** Starts with a dash but names nothing: {@code --=x}, {@code ---x}. */
        record BadSyntax(String arg) implements Problem {
        }
    }

    public CommandLine {
        values = Map.copyOf(values);
        problems = List.copyOf(problems);
        Objects.requireNonNull(binary, "binary");
    }

    /** The value of the last occurrence of {@code setting}'s flags, as written; empty when none was given. */
    public Optional<String> last(Setting<?> setting) {
        List<Occurrence> occurrences = values.get(setting);
        return occurrences == null ? Optional.empty() : Optional.of(occurrences.getLast().value());
    }

    /** The problems in an agent's words, {@code <flag> was '<value>' but it <reason>}. */
    public List<ValidationFailure> failures() {
        return problems.stream().map(this::failure).toList();
    }

    private ValidationFailure failure(Problem problem) {
        return switch (problem) {
            case Problem.Stray(String arg) -> new ValidationFailure("command line", arg, "must hold only flags, as " + binary
                    + " takes no arguments; a boolean flag takes its value as --flag=false, not as the next argument");
            case Problem.UnknownFlag(String arg, String flag, String value) ->
                    new ValidationFailure(flag, value, "is not a flag of " + binary + " (see --help)");
            case Problem.MissingValue(String arg, Setting<?> setting) ->
                    ValidationFailure.missing(arg, "needs a value: " + arg + "=<" + setting.type().describe() + ">");
            case Problem.BadSyntax(String arg) -> new ValidationFailure(arg, arg, "is not valid flag syntax; write --name=value");
        };
    }

    /**
     * Reads {@code args} against {@code settings}' flags.
     *
     * @param binary the agent or tool, in {@link #failures()}' words: {@code kgpu-plugin}
     */
    public static CommandLine parse(String[] args, List<Setting<?>> settings, String binary) {
        Map<String, Setting<?>> byFlag = new LinkedHashMap<>();
        for (Setting<?> setting : settings) {
            for (String flag : setting.flags()) {
                byFlag.put(flag, setting);
            }
        }
        Map<Setting<?>, List<Occurrence>> values = new LinkedHashMap<>();
        List<Problem> problems = new ArrayList<>();
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                for (int j = i + 1; j < args.length; j++) {
                    problems.add(new Problem.Stray(args[j]));
                }
                break;
            }
            if (arg.length() < 2 || arg.charAt(0) != '-') {
                problems.add(new Problem.Stray(arg));
                continue;
            }
            String dashes = arg.startsWith("--") ? "--" : "-";
            String body = arg.substring(dashes.length());
            int equals = body.indexOf('=');
            String name = equals < 0 ? body : body.substring(0, equals);
            String written = dashes + name;
            if (name.isEmpty() || name.startsWith("-")) {
                problems.add(new Problem.BadSyntax(arg));
                continue;
            }
            if (name.equals("help") || name.equals("h")) {
                help = true;
                continue;
            }
            Setting<?> setting = byFlag.get(name);
            if (setting == null) {
                problems.add(new Problem.UnknownFlag(arg, written, equals < 0 ? "" : body.substring(equals + 1)));
                continue;
            }
            String value;
            if (equals >= 0) {
                value = body.substring(equals + 1);
            } else if (setting.isBoolean()) {
                value = "true";
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                problems.add(new Problem.MissingValue(written, setting));
                continue;
            }
            values.computeIfAbsent(setting, s -> new ArrayList<>()).add(new Occurrence(written, value));
        }
        return new CommandLine(values, problems, help, binary);
    }
}
