package dev.kgpu.plugin;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The entry point's decision, tested without exiting the JVM: a bad setting means exit status 1 and one
 * line that names the field and the bad value.
 */
class StartupDecisionTest {

    @TempDir
    Path dir;

    record Case(String description, String configFile, Map<String, String> env, List<String> flags, String expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Case> badConfigurations() {
        return Stream.of(
                new Case("unknown version", "version: v2\n", Map.of(), List.of(), "version was 'v2'"),
                new Case("unknown MIG strategy in the file", "version: v1\nflags:\n  migStrategy: some\n", Map.of(), List.of(),
                        "flags.migStrategy was 'some'"),
                new Case("unknown device list strategy from the environment", null,
                        Map.of("DEVICE_LIST_STRATEGY", "envvars"), List.of(), "DEVICE_LIST_STRATEGY was 'envvars'"),
                new Case("unknown ID strategy from a flag", null, Map.of(), List.of("--device-id-strategy=serial"),
                        "--device-id-strategy was 'serial'"),
                new Case("replicas below 2", """
                        version: v1
                        sharing:
                          timeSlicing:
                            resources:
                            - name: nvidia.com/gpu
                              replicas: 1
                        """, Map.of(), List.of(), "sharing.timeSlicing.resources[0].replicas was '1'"),
                new Case("MPS with mixed MIG", """
                        version: v1
                        flags:
                          migStrategy: mixed
                          mpsRoot: /run/nvidia/mps
                        sharing:
                          mps:
                            resources:
                            - name: nvidia.com/gpu
                              replicas: 2
                        """, Map.of(), List.of(), "flags.migStrategy was 'mixed'"),
                new Case("a file that is not YAML", "version: v1\nflags: [\n", Map.of(), List.of(), "config"),
                new Case("a malformed DP_DISABLE_HEALTHCHECKS", null, Map.of("DP_DISABLE_HEALTHCHECKS", "48,x"), List.of(),
                        "DP_DISABLE_HEALTHCHECKS was '48,x'"),
                new Case("a malformed quiet period", null, Map.of("KGPU_HEALTH_QUIET_PERIOD", "5 minutes"), List.of(),
                        "KGPU_HEALTH_QUIET_PERIOD was '5 minutes'"),
                new Case("a missing config file", null, Map.of("CONFIG_FILE", "/nonexistent/config.yaml"), List.of(),
                        "/nonexistent/config.yaml"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigurations")
    void badConfigurationsExitWithOneLineNamingTheField(Case bad) throws IOException {
        Map<String, String> env = new HashMap<>(bad.env());
        if (bad.configFile() != null) {
            Path file = dir.resolve("config.yaml");
            Files.writeString(file, bad.configFile());
            env.put("CONFIG_FILE", file.toString());
        }

        StartupDecision decision = StartupDecision.decide(bad.flags().toArray(String[]::new), env::get);

        assertThat(decision).isInstanceOfSatisfying(StartupDecision.Exit.class, exit -> {
            assertThat(exit.status()).isEqualTo(1);
            assertThat(exit.message()).doesNotContain("\n").contains(bad.expected());
        });
    }

    @Test
    void everyBadSettingIsNamedOnTheSameLine() {
        StartupDecision decision = StartupDecision.decide(new String[]{"--mig-strategy=some"},
                Map.of("KGPU_HEALTH_RECOVERABLE_XIDS", "48,seventy-nine")::get);

        assertThat(decision).isInstanceOfSatisfying(StartupDecision.Exit.class, exit -> assertThat(exit.message())
                .doesNotContain("\n")
                .contains("--mig-strategy was 'some'")
                .contains("KGPU_HEALTH_RECOVERABLE_XIDS was '48,seventy-nine'"));
    }

    @Test
    void helpPrintsUsageAndExitsZero() {
        StartupDecision decision = StartupDecision.decide(new String[]{"--help"}, Map.<String, String>of()::get);

        assertThat(decision).isInstanceOfSatisfying(StartupDecision.Exit.class, exit -> {
            assertThat(exit.status()).isZero();
            assertThat(exit.message()).contains("--mig-strategy").contains("MIG_STRATEGY");
        });
    }

    @Test
    void aGoodConfigurationRuns() throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "version: v1\nflags:\n  migStrategy: mixed\n");

        StartupDecision decision = StartupDecision.decide(new String[]{"--config-file", file.toString()},
                Map.of("KGPU_HEALTH_QUIET_PERIOD", "30s", "KGPU_HEALTH_RECOVERABLE_XIDS", "48")::get);

        assertThat(decision).isInstanceOfSatisfying(StartupDecision.Run.class, run -> {
            assertThat(run.config().config().flags().migStrategy().wireName()).isEqualTo("mixed");
            assertThat(run.recovery().quietPeriod()).hasSeconds(30);
            assertThat(run.recovery().recoverableXids()).containsExactly(48L);
        });
    }
}
