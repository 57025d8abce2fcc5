package dev.kgpu.agent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.assertj.core.api.SoftAssertions;

/**
 * Checks one setting's precedence exhaustively: every assignment of candidate values to the flag, the
 * environment variable and the config file, under every combination of which of them are present, must
 * give the value of the first present source (flag, then variable, then file), else the default.
 */
public final class Precedence {

    /** A value as the command line and environment write it, as the file writes it, and as Java sees it. */
    public record Candidate(String text, String yaml, Object value) {
    }

    /**
     * @param description what the case is, for the report
     * @param flag        the flag, without dashes
     * @param env         the environment variable
     * @param filePath    the config-file path, e.g. {@code flags.plugin.passDeviceSpecs}; null when none
     * @param defaultValue what the setting is when nothing sets it
     * @param get         reads the setting from the loaded configuration
     * @param candidates  values to assign
     */
    public record Binding<C>(String description, String flag, String env, String filePath, Object defaultValue,
                      Function<C, Object> get, List<Candidate> candidates) {
        @Override
        public String toString() {
            return description;
        }
    }

    private Precedence() {
    }

    /**
     * @param load        loads a configuration from (args, environment)
     * @param baseEnv     variables every load needs (e.g. NODE_NAME)
     */
    public static <C> void check(Binding<C> binding, Path dir, BiFunction<String[], Function<String, String>, C> load,
                          Map<String, String> baseEnv) {
        Path file = dir.resolve("config.yaml");
        SoftAssertions softly = new SoftAssertions();
        List<Candidate> candidates = binding.candidates();
        int checked = 0;
        for (int present = 0; present < 8; present++) {
            boolean flagSet = (present & 4) != 0;
            boolean envSet = (present & 2) != 0;
            boolean fileSet = (present & 1) != 0;
            if ((flagSet && binding.flag() == null) || (envSet && binding.env() == null)
                    || (fileSet && binding.filePath() == null)) {
                continue; // the setting has no such source
            }
            for (Candidate onFlag : flagSet ? candidates : List.of(candidates.getFirst())) {
                for (Candidate inEnv : envSet ? candidates : List.of(candidates.getFirst())) {
                    for (Candidate inFile : fileSet ? candidates : List.of(candidates.getFirst())) {
                        List<String> args = new ArrayList<>();
                        Map<String, String> env = new HashMap<>(baseEnv);
                        if (flagSet) {
                            args.add("--" + binding.flag() + "=" + onFlag.text());
                        }
                        if (envSet) {
                            env.put(binding.env(), inEnv.text());
                        }
                        write(file, fileSet ? yaml(binding.filePath(), inFile.yaml()) : "version: v1\n");
                        env.put("CONFIG_FILE", file.toString());
                        Object expected = flagSet ? onFlag.value() : envSet ? inEnv.value()
                                : fileSet ? inFile.value() : binding.defaultValue();
                        String situation = "flag " + (flagSet ? onFlag.text() : "-") + ", env " + (envSet ? inEnv.text() : "-")
                                + ", file " + (fileSet ? inFile.yaml() : "-");
                        C loaded = load.apply(args.toArray(String[]::new), env::get);
                        softly.assertThat(binding.get().apply(loaded)).as(situation).isEqualTo(expected);
                        checked++;
                    }
                }
            }
        }
        softly.assertAll();
        assertThat(checked).as("combinations checked").isGreaterThanOrEqualTo(4);
    }

    /** {@code flags.plugin.x} and {@code v} → a YAML document setting that field. */
    public static String yaml(String path, String value) {
        String[] parts = path.split("\\.");
        StringBuilder out = new StringBuilder("version: v1\n");
        for (int i = 0; i < parts.length; i++) {
            out.append("  ".repeat(i)).append(parts[i]).append(':');
            out.append(i + 1 < parts.length ? "\n" : " " + value + "\n");
        }
        return out.toString();
    }

    public static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
