package dev.kgpu.agent.settings;

import dev.kgpu.config.ValidationFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line as Go's {@code flag} package (under NVIDIA's urfave/cli) reads it, for every agent:
 * {@code -name} or {@code --name} for any flag, long or short; a value as {@code --name=value} or as the
 * next argument; a boolean as {@code --name} (true) or {@code --name=false}. A boolean flag never takes the
 * next argument as its value, as in urfave/cli: {@code --oneshot false} is {@code --oneshot} followed by the
 * argument {@code false}. No agent takes arguments, so unlike Go, where such an argument is silently
 * ignored (and {@code --oneshot false} quietly means {@code --oneshot=true}), a stray argument is an error.
 * {@code -h} and {@code --help} ask for the usage text.
 *
 * @param values   every occurrence of each setting's flags, in order
 * @param failures what could not be read
 * @param helpRequested whether {@code -h} or {@code --help} was given
 */
record CommandLine(Map<Setting<?>, List<Occurrence>> values, List<ValidationFailure> failures, boolean helpRequested) {

    /** One {@code --name=value}: the flag as written (for messages) and its value. */
    record Occurrence(String flag, String value) {
    }

    CommandLine {
        values = Map.copyOf(values);
        failures = List.copyOf(failures);
    }

    static CommandLine parse(String[] args, List<Setting<?>> settings, String binary) {
        Map<String, Setting<?>> byFlag = new LinkedHashMap<>();
        for (Setting<?> setting : settings) {
            for (String flag : setting.flags()) {
                byFlag.put(flag, setting);
            }
        }
        Map<Setting<?>, List<Occurrence>> values = new LinkedHashMap<>();
        List<ValidationFailure> failures = new ArrayList<>();
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                for (int j = i + 1; j < args.length; j++) {
                    failures.add(stray(args[j], binary));
                }
                break;
            }
            if (arg.length() < 2 || arg.charAt(0) != '-') {
                failures.add(stray(arg, binary));
                continue;
            }
            String dashes = arg.startsWith("--") ? "--" : "-";
            String body = arg.substring(dashes.length());
            int equals = body.indexOf('=');
            String name = equals < 0 ? body : body.substring(0, equals);
            String written = dashes + name;
            if (name.isEmpty() || name.startsWith("-")) {
                failures.add(new ValidationFailure(arg, arg, "is not valid flag syntax; write --name=value"));
                continue;
            }
            if (name.equals("help") || name.equals("h")) {
                help = true;
                continue;
            }
            Setting<?> setting = byFlag.get(name);
            if (setting == null) {
                failures.add(new ValidationFailure(written, equals < 0 ? "" : body.substring(equals + 1),
                        "is not a flag of " + binary + " (see --help)"));
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
                failures.add(ValidationFailure.missing(written, "needs a value: " + written + "=<" + setting.type().describe() + ">"));
                continue;
            }
            values.computeIfAbsent(setting, s -> new ArrayList<>()).add(new Occurrence(written, value));
        }
        return new CommandLine(values, failures, help);
    }

    private static ValidationFailure stray(String arg, String binary) {
        return new ValidationFailure("command line", arg, "must hold only flags, as " + binary
                + " takes no arguments; a boolean flag takes its value as --flag=false, not as the next argument");
    }
}
