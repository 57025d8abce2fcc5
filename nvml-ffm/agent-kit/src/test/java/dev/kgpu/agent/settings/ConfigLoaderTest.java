package dev.kgpu.agent.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.ValueType;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The shared loader for an agent without a config file, as the exporter and the validator use it: short
 * flags, boolean flags, values of the agent's own kind, checks spanning settings, and {@code --help}.
 */
class ConfigLoaderTest {

    record Settings(Duration interval, boolean kubernetes, String address, Optional<String> specs, int tries) {
    }

    static final Setting<Duration> INTERVAL = Setting.of(List.of("collect-interval", "c"), List.of("INTERVAL"),
            ValueType.duration(ChronoUnit.MILLIS, 1, Integer.MAX_VALUE), Duration.ofSeconds(30), "time between collections");
    static final Setting<Boolean> KUBERNETES = Setting.of(List.of("kubernetes", "k"), List.of("KUBERNETES"),
            ValueType.bool(), false, "attribute series to pods");
    static final Setting<String> ADDRESS = Setting.of(List.of("address", "a"), List.of("LISTEN"),
            ValueType.of("[host]:port", text -> {
                if (!text.contains(":")) {
                    throw new IllegalArgumentException("must be [host]:port");
                }
                return text;
            }, text -> text), ":9400", "where to listen");
    static final Setting<Optional<String>> SPECS = Setting.of(List.of(), List.of("SPEC_DIR"),
            ValueType.optional(ValueType.absolutePath()), Optional.empty(), "a folder of specs");
    static final Setting<Integer> TRIES = Setting.of(List.of("tries", "ns"), List.of("TRIES", "OLD_TRIES"),
            ValueType.wholeNumber(1, 10, ""), 3, "how often to try");

    static final ConfigLoader.Agent<Settings> AGENT = new ConfigLoader.Agent<>("kgpu-test",
            List.of(INTERVAL, KUBERNETES, ADDRESS, SPECS, TRIES), resolved -> {
                Settings settings = new Settings(resolved.get(INTERVAL), resolved.get(KUBERNETES), resolved.get(ADDRESS),
                        resolved.get(SPECS), resolved.get(TRIES));
                if (settings.kubernetes() && settings.specs().isEmpty()) {
                    resolved.fail(SPECS, "", "must name a folder when " + resolved.property(KUBERNETES) + " is set");
                }
                return settings;
            });

    static Settings load(Map<String, String> env, String... args) {
        return new ConfigLoader<>(AGENT, args, env::get).load();
    }

    @Test
    void flagsWinOverVariablesWhichWinOverDefaults() {
        assertThat(load(Map.of())).isEqualTo(new Settings(Duration.ofSeconds(30), false, ":9400", Optional.empty(), 3));
        assertThat(load(Map.of("INTERVAL", "1000", "LISTEN", "127.0.0.1:1", "OLD_TRIES", "5")))
                .isEqualTo(new Settings(Duration.ofSeconds(1), false, "127.0.0.1:1", Optional.empty(), 5));
        assertThat(load(Map.of("INTERVAL", "1000", "TRIES", "4", "OLD_TRIES", "5"), "-c", "2000", "--address=:1", "-ns=6"))
                .isEqualTo(new Settings(Duration.ofSeconds(2), false, ":1", Optional.empty(), 6));
    }

    @Test
    void aBooleanFlagTakesNoValueFromTheNextArgument() {
        assertThat(load(Map.of("SPEC_DIR", "/specs"), "-k").kubernetes()).isTrue();
        assertThat(load(Map.of("KUBERNETES", "true"), "--kubernetes=false").kubernetes()).isFalse();
        assertThatThrownBy(() -> load(Map.of("SPEC_DIR", "/specs"), "-k", "false"))
                .hasMessage("invalid configuration: command line was 'false' but it must hold only flags, as kgpu-test"
                        + " takes no arguments; a boolean flag takes its value as --flag=false, not as the next argument");
    }

    @Test
    void failuresNameTheFlagAsWrittenOrTheVariableAndCheckAcrossSettings() {
        assertThatThrownBy(() -> load(Map.of("LISTEN", "9400", "TRIES", "11"), "-c", "0", "-k"))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .extracting(ValidationFailure::message).containsExactlyInAnyOrder(
                                "-c was '0' but it must be a positive whole number of milliseconds",
                                "LISTEN was '9400' but it must be [host]:port",
                                "TRIES was '11' but it must be a whole number from 1 to 10",
                                "SPEC_DIR was '' but it must name a folder when -k is set"));
        assertThatThrownBy(() -> load(Map.of("SPEC_DIR", "specs")))
                .hasMessage("invalid configuration: SPEC_DIR was 'specs' but it must be an absolute path");
        assertThatThrownBy(() -> load(Map.of(), "-f"))
                .hasMessage("invalid configuration: -f was '' but it is not a flag of kgpu-test (see --help)");
        assertThatThrownBy(() -> load(Map.of(), "--address"))
                .hasMessage("invalid configuration: --address was 'null' but it needs a value: --address=<[host]:port>");
    }

    @Test
    void anEmptyVariableCountsAsSetAndAnOptionalOneMeansNone() {
        assertThat(load(Map.of("SPEC_DIR", "")).specs()).isEmpty();
        assertThatThrownBy(() -> load(Map.of("KUBERNETES", "")))
                .hasMessageStartingWith("invalid configuration: KUBERNETES was '' but it must be a boolean");
    }

    @Test
    void helpListsEveryFlagWithItsVariablesAndDefaultAndExitsZero() {
        assertThatThrownBy(() -> load(Map.of(), "-h")).isInstanceOfSatisfying(UsageRequestedException.class, e -> {
            assertThat(e.exitCode()).isZero();
            assertThat(e.getMessage()).contains(
                    "  --collect-interval, -c=<int>\n        time between collections (env INTERVAL; default '30000')",
                    "  --kubernetes, -k\n        attribute series to pods (env KUBERNETES; default 'false')",
                    "  SPEC_DIR\n        a folder of specs (default '')",
                    "  --tries, --ns=<int>\n        how often to try (env TRIES, OLD_TRIES; default '3')");
        });
    }

    @Test
    void aBadConfigurationExitsOne() {
        assertThatThrownBy(() -> load(Map.of("TRIES", "0")))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.exitCode()).isEqualTo(1));
    }
}
