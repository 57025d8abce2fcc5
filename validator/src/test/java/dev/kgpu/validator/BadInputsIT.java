package dev.kgpu.validator;

import dev.kgpu.agent.testing.BadInputs;
import dev.kgpu.agent.testing.PackagedAgent;
import dev.kgpu.validator.config.ValidatorSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged validator as gpu-operator runs it: a bad setting is one line and exit 1; a one-shot run (an init
 * container) opens no port; daemon mode stops cleanly on SIGTERM, its {@code *-ready} files removed. About
 * 20 s of JVM starts.
 */
class BadInputsIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    static Path dir;

    @BeforeAll
    static void simulatedNode() throws IOException {
        dir = Files.createTempDirectory("kgpu-bad");
        Files.createDirectories(dir.resolve("dev"));
        for (String node : new String[] {"nvidiactl", "nvidia-uvm", "nvidia0"}) {
            Files.writeString(dir.resolve("dev").resolve(node), "");
        }
    }

    @AfterAll
    static void removeFolder() throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static Map<String, String> node(String... more) {
        Map<String, String> env = new HashMap<>(Map.of("COMPONENT", "driver,toolkit", "NVIDIA_DEV_ROOT", dir.toString(),
                "OUTPUT_DIR", dir.resolve("validations").toString(), "KGPU_SIMULATED_DEVICE_NODES", "true",
                "MOCK_NVML_PROFILE", "rtx3060"));
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    @Test
    void aBadSettingPrintsExactlyOneLineAndExitsOne() {
        try (PackagedAgent validator = PackagedAgent.start(dir, node("KGPU_REVALIDATE_INTERVAL_SECONDS", "1"))) {
            PackagedAgent.Exit exit = validator.awaitExit(WAIT);

            assertThat(exit.status()).isEqualTo(1);
            assertThat(exit.stdout()).isEmpty();
            assertThat(exit.stderr().lines()).singleElement().asString().isEqualTo(ValidatorSettings.NAME
                    + ": invalid configuration: KGPU_REVALIDATE_INTERVAL_SECONDS was '1' but it must be a whole number"
                    + " of seconds from 10 to 86400");
        }
    }

    @Test
    void aBadHttpPortIsRefusedBeforeQuarkusBindsIt() {
        try (PackagedAgent validator = PackagedAgent.start(dir, node("KGPU_VALIDATOR_MODE", "daemon", "QUARKUS_HTTP_PORT", "99999"))) {
            PackagedAgent.Exit exit = validator.awaitExit(WAIT);

            assertThat(exit.status()).as(exit.output()).isEqualTo(1);
            assertThat(exit.stdout()).isEmpty();
            assertThat(exit.stderr().lines()).singleElement().asString().isEqualTo(ValidatorSettings.NAME
                    + ": invalid configuration: QUARKUS_HTTP_PORT was '99999' but it must be a whole number from 0 to 65535");
        }
    }

    @Test
    void aOneShotRunOpensNoPort() throws IOException {
        try (ServerSocket taken = new ServerSocket(0);
             PackagedAgent validator = PackagedAgent.start(dir, node("QUARKUS_HTTP_PORT",
                     Integer.toString(taken.getLocalPort())))) {
            PackagedAgent.Exit exit = validator.awaitExit(WAIT);

            // the port was taken all along: a run that bound it would have failed to start
            assertThat(exit.status()).as(exit.output()).isZero();
            assertThat(exit.stdout().lines()).containsExactly(
                    "driver PASSED driver 550.54.15, CUDA 12.4, 1 GPU answered (NVIDIA GeForce RTX 3060, 12288 MiB in all)",
                    "toolkit PASSED 3 device nodes under " + dir);
            BadInputs.assertNoStackTrace("the validator's output", exit.output());
        }
    }

    @Test
    void daemonModeStopsCleanlyOnSigtermAndRemovesItsReadyFiles() {
        int port = PackagedAgent.freePort();
        Path ready = dir.resolve("validations/driver-ready");
        try (PackagedAgent validator = PackagedAgent.start(dir, node("KGPU_VALIDATOR_MODE", "daemon",
                "QUARKUS_HTTP_PORT", Integer.toString(port)))) {
            validator.await(() -> PackagedAgent.status(port, "/q/health/ready") == 200, WAIT, "ready");
            assertThat(ready).exists();

            validator.terminate();
            PackagedAgent.Exit exit = validator.awaitExit(WAIT);

            assertThat(exit.status()).as(exit.output()).isEqualTo(PackagedAgent.STOPPED_BY_SIGTERM);
            assertThat(ready).doesNotExist();
            assertThat(dir.resolve("validations/toolkit-ready")).doesNotExist();
            BadInputs.assertNoStackTrace("the validator's output", exit.output());
        }
    }
}
