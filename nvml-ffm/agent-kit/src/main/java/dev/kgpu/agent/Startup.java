package dev.kgpu.agent;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import java.io.PrintStream;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What an agent's entry point decides before Quarkus starts: run with the settings it read, or end at once
 * with one line and an exit status. Reading the settings first means a bad one prints exactly that line and
 * nothing else (no start-up or shutdown lines of Quarkus), and that a setting which decides how Quarkus
 * starts (its HTTP port, whether a one-shot run opens one at all) is known in time.
 *
 * <p>An agent's entry point gets it through {@link Launch}, which prints the {@link Exit} or hands the settings of
 * the {@link Run} into Quarkus:
 *
 * <pre>{@code
 * static final Launch<PluginSettings> LAUNCH = new Launch<>("kgpu-plugin", PluginSettings.class, PluginSettings::load);
 *
 * public static Startup<PluginSettings> load(String[] args, Function<String, String> environment) {
 *     return LAUNCH.load(args, environment);   // Startup.load("kgpu-plugin", () -> PluginSettings.load(args, environment))
 * }
 * }</pre>
 *
 * <p>{@code load} runs in-process in the tests of every bad input: only a {@link dev.kgpu.config.ConfigException}
 * becomes an {@link Exit}; anything else thrown is a bug, and propagates. Immutable.
 *
 * @param <T> the agent's settings record
 */
public sealed interface Startup<T> permits Startup.Run, Startup.Exit {

    /** The settings were read: start Quarkus with them. */
    record Run<T>(T settings) implements Startup<T> {
        public Run {
            Objects.requireNonNull(settings, "settings");
        }
    }

    /**
     * End now without starting anything.
     *
     * @param status the exit status: 0 after {@code --help}, 1 for bad settings
     * @param stdout the usage text after {@code --help}, else empty
     * @param stderr {@code <binary>: invalid configuration: <failure>; <failure>}, one line naming every bad
     *               setting and its value, else empty
     */
    record Exit<T>(int status, String stdout, String stderr) implements Startup<T> {
        public Exit {
            Objects.requireNonNull(stdout, "stdout");
            Objects.requireNonNull(stderr, "stderr");
        }

        /** Prints what there is to print and returns the exit status. */
        public int print(PrintStream out, PrintStream err) {
            if (!stdout.isEmpty()) {
                out.println(stdout);
            }
            if (!stderr.isEmpty()) {
                err.println(stderr);
            }
            out.flush();
            err.flush();
            return status;
        }
    }

    /**
     * Reads the settings with {@code load}.
     *
     * @param binary the agent, first on the error line: {@code kgpu-plugin}
     */
    static <T> Startup<T> load(String binary, Supplier<T> load) {
        try {
            return new Run<>(load.get());
        } catch (UsageRequestedException e) {
            return new Exit<>(e.exitCode(), e.getMessage(), "");
        } catch (InvalidConfigException e) {
            return new Exit<>(e.exitCode(), "", binary + ": " + e.getMessage());
        }
    }
}
