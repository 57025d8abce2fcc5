package dev.kgpu.plugin;

import dev.kgpu.agent.testing.BadInputs;
import dev.kgpu.agent.testing.PackagedAgent;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bad-input corpus end to end on the packaged plugin, as its image runs it (a 48 MiB heap): a few rows of
 * {@code bad-inputs/plugin.txt} as real processes (exit status, stdout and stderr whole), and SIGHUP with bad
 * files while it serves: the running config stays, the plugin stays ready. About 30 s of JVM starts.
 */
class BadInputsIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    static Path dir;

    @BeforeAll
    static void folder() throws IOException {
        dir = Files.createTempDirectory("kgpu-bad");
    }

    @AfterAll
    static void removeFolder() throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @ParameterizedTest(name = "{0}")
    // a few rows only: BadInputsTest runs every row in-process; these prove the packaged agent prints that line alone
    @ValueSource(strings = {"config-alias-bomb", "kubelet-socket-long", "http-port-range"})
    void aBadSettingPrintsExactlyOneLineAndExitsOne(String id) {
        BadInputs.Row row = BadInputs.table("plugin", dir).stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow();

        try (PackagedAgent plugin = PackagedAgent.start(dir, row.env(), row.argv())) {
            PackagedAgent.Exit exit = plugin.awaitExit(WAIT);

            assertThat(exit.status()).as(exit.output()).isEqualTo(1);
            assertThat(exit.stdout()).isEmpty();
            assertThat(exit.stderr().lines()).as(exit.stderr()).singleElement().asString()
                    .startsWith(PluginMain.NAME + ": invalid configuration: ").contains(row.expected());
        }
    }

    @Test
    void helpPrintsTheUsageAndExitsZero() {
        try (PackagedAgent plugin = PackagedAgent.start(dir, Map.of(), "--help")) {
            PackagedAgent.Exit exit = plugin.awaitExit(WAIT);

            assertThat(exit.status()).isZero();
            assertThat(exit.stdout()).startsWith("Flags of ").contains("KGPU_HEALTH_CHECK_INTERVAL");
            assertThat(exit.stderr()).isEmpty();
        }
    }

    @Test
    void aBadFileOnSighupKeepsTheRunningConfigAndTheResources() throws IOException {
        Path config = Files.writeString(dir.resolve("config.yaml"), "version: v1\nflags:\n  migStrategy: none\n");
        int port = PackagedAgent.freePort();
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir.resolve("device-plugins"));
             PackagedAgent plugin = PackagedAgent.start(dir, Map.of("CONFIG_FILE", config.toString(),
                     "KUBELET_SOCKET", kubelet.socket().toString(), "QUARKUS_HTTP_PORT", Integer.toString(port),
                     "MOCK_NVML_PROFILE", "dgx-a100"))) {
            plugin.await(() -> PackagedAgent.status(port, "/q/health/ready") == 200, WAIT, "ready");
            kubelet.awaitResource("nvidia.com/gpu", r -> r.allocatable() == 8, WAIT);

            int rejected = 0;
            for (String bad : new String[] {"alias-bomb.yaml", "keys-300k.yaml", "random.bin", "sparse-60MiB.bin"}) {
                Files.copy(BadInputs.file(bad, dir), config, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                plugin.hangUp();
                int seen = ++rejected;
                plugin.await(() -> plugin.output().split("SIGHUP: keeping the running config", -1).length - 1 == seen,
                        WAIT, "the reload of " + bad + " refused");
                assertThat(PackagedAgent.status(port, "/q/health/ready")).as("ready after " + bad).isEqualTo(200);
            }
            assertThat(kubelet.awaitResource("nvidia.com/gpu", r -> r.allocatable() == 8, WAIT).capacity()).isEqualTo(8);
            BadInputs.assertNoStackTrace("the plugin's output", plugin.output());
            assertThat(plugin.output()).doesNotContain("OutOfMemoryError")
                    .contains("SIGHUP: keeping the running config: invalid configuration: " + config
                            + " was 'line 12, column 12: a9");

            plugin.terminate();
            assertThat(plugin.awaitExit(WAIT).status()).isEqualTo(PackagedAgent.STOPPED_BY_SIGTERM);
            assertThat(kubelet.socket().getParent().resolve("nvidia-gpu.sock")).doesNotExist();
        }
    }

    @Test
    void withoutNvmlAndFailOnInitErrorFalseItStaysUpNotReadyRetriesAndRecovers() throws IOException {
        Path profile = Files.writeString(dir.resolve("profile.json"), "{\"schemaVersion\": 1, \"gpus\": [");
        int port = PackagedAgent.freePort();
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir.resolve("no-nvml"));
             PackagedAgent plugin = PackagedAgent.start(dir, Map.of("FAIL_ON_INIT_ERROR", "false",
                     "MOCK_NVML_PROFILE", profile.toString(), "MOCK_NVML_QUIET", "1",
                     "KUBELET_SOCKET", kubelet.socket().toString(), "QUARKUS_HTTP_PORT", Integer.toString(port)))) {
            plugin.await(() -> plugin.output().contains("retrying (failOnInitError is false)"), WAIT, "not serving");
            assertThat(PackagedAgent.status(port, "/q/health/ready")).isEqualTo(503);
            assertThat(PackagedAgent.status(port, "/q/health/live")).isEqualTo(200);

            // the driver comes: the next retry finds it
            Files.copy(Path.of(System.getenv("KGPU_MOCK_PROFILES"), "rtx3060.json"), profile,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            plugin.await(() -> PackagedAgent.status(port, "/q/health/ready") == 200, WAIT, "ready once NVML answers");
            assertThat(plugin.output().split("retrying \\(failOnInitError is false\\)", -1)).as("one line per cause")
                    .hasSize(2);
            BadInputs.assertNoStackTrace("the plugin's output", plugin.output());
        }
        Files.writeString(profile, "{\"schemaVersion\": 1, \"gpus\": [");
        try (PackagedAgent plugin = PackagedAgent.start(dir, Map.of("MOCK_NVML_PROFILE", profile.toString(),
                "MOCK_NVML_QUIET", "1", "KUBELET_SOCKET", "", "QUARKUS_HTTP_PORT", "0"))) {
            PackagedAgent.Exit exit = plugin.awaitExit(WAIT);

            assertThat(exit.status()).as(exit.output()).isEqualTo(1);
            BadInputs.assertNoStackTrace("the plugin's output", exit.output());
        }
    }
}
