package dev.kgpu.discovery;

import dev.kgpu.agent.testing.BadInputs;
import dev.kgpu.agent.testing.PackagedAgent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bad-input corpus end to end on packaged feature discovery, as its image runs it (a 48 MiB heap): rows of
 * {@code bad-inputs/discovery.txt} as real processes, a one-shot run that opens no port, a file sink that creates
 * no folder, a machine-type file of {@code /dev/zero}, and SIGHUP with bad files: the running config stays and
 * discovery stays ready. About 40 s of JVM starts.
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

    /** A labelling run that needs no API server: the file sink, in a folder that exists. */
    static Map<String, String> fileSink(Path file, String... more) {
        Map<String, String> env = new HashMap<>(Map.of("KGPU_LABEL_SINK", "file", "GFD_OUTPUT_FILE", file.toString(),
                "GFD_MACHINE_TYPE_FILE", "", "QUARKUS_HTTP_PORT", "0"));
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    @ParameterizedTest(name = "{0}")
    // a few rows only: BadInputsTest runs every row in-process; these prove the packaged agent prints that line alone
    @ValueSource(strings = {"config-keys-300k", "sleep-no-unit", "sleep-negative", "http-port-range"})
    void aBadSettingPrintsExactlyOneLineAndExitsOne(String id) {
        BadInputs.Row row = BadInputs.table("discovery", dir).stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow();
        Map<String, String> env = new HashMap<>(Map.of("NODE_NAME", "node-a"));
        env.putAll(row.env());

        try (PackagedAgent discovery = PackagedAgent.start(dir, env, row.argv())) {
            PackagedAgent.Exit exit = discovery.awaitExit(WAIT);

            assertThat(exit.status()).as(exit.output()).isEqualTo(1);
            assertThat(exit.stdout()).isEmpty();
            assertThat(exit.stderr().lines()).as(exit.stderr()).singleElement().asString()
                    .startsWith(DiscoveryMain.NAME + ": invalid configuration: ").contains(row.expected());
        }
    }

    @Test
    void aOneShotRunOpensNoPortAndAMachineTypeOfDevZeroIsUnknownInOneLine() throws IOException {
        Path features = Files.createDirectories(dir.resolve("features.d")).resolve("gfd");
        try (ServerSocket taken = new ServerSocket(0);
             PackagedAgent discovery = PackagedAgent.start(dir, fileSink(features, "GFD_ONESHOT", "true",
                     "GFD_MACHINE_TYPE_FILE", "/dev/zero", "QUARKUS_HTTP_PORT", Integer.toString(taken.getLocalPort())))) {
            PackagedAgent.Exit exit = discovery.awaitExit(WAIT);

            // the port was taken all along: a run that bound it would have failed to start
            assertThat(exit.status()).as(exit.output()).isZero();
            assertThat(Files.readString(features)).contains("nvidia.com/gpu.machine=unknown");
            assertThat(exit.output().lines().filter(l -> l.contains("GFD_MACHINE_TYPE_FILE was '/dev/zero'")))
                    .singleElement().asString().contains("labelling gpu.machine=unknown");
            BadInputs.assertNoStackTrace("discovery's output", exit.output());
        }
    }

    @Test
    void aFileSinkInAMissingFolderCreatesNoneAndExitsOneWithOneLine() {
        Path features = dir.resolve("etc/kubernetes/node-feature-discovery/features.d/gfd");
        try (PackagedAgent discovery = PackagedAgent.start(dir, fileSink(features, "GFD_ONESHOT", "true"))) {
            PackagedAgent.Exit exit = discovery.awaitExit(WAIT);

            assertThat(exit.status()).as(exit.output()).isEqualTo(1);
            assertThat(exit.output().lines().filter(l -> l.contains("does not exist; discovery creates no folders")))
                    .hasSize(1);
            assertThat(dir.resolve("etc")).doesNotExist();
            BadInputs.assertNoStackTrace("discovery's output", exit.output());
        }
    }

    @Test
    void aBadFileOnSighupKeepsTheRunningConfigAndStaysReady() throws IOException {
        Path features = Files.createDirectories(dir.resolve("sighup")).resolve("gfd");
        Path config = Files.writeString(dir.resolve("gfd-config.yaml"), "version: v1\nflags:\n  migStrategy: none\n");
        int port = PackagedAgent.freePort();
        try (PackagedAgent discovery = PackagedAgent.start(dir, fileSink(features, "CONFIG_FILE", config.toString(),
                "GFD_SLEEP_INTERVAL", "1h", "QUARKUS_HTTP_PORT", Integer.toString(port)))) {
            discovery.await(() -> PackagedAgent.status(port, "/q/health/ready") == 200, WAIT, "ready");

            int rejected = 0;
            for (String bad : new String[] {"alias-bomb.yaml", "keys-300k.yaml", "random.bin"}) {
                Files.copy(BadInputs.file(bad, dir), config, StandardCopyOption.REPLACE_EXISTING);
                discovery.hangUp();
                int seen = ++rejected;
                discovery.await(() -> discovery.output().split("keeping the configuration in use", -1).length - 1 == seen,
                        WAIT, "the reload of " + bad + " refused");
                assertThat(PackagedAgent.status(port, "/q/health/ready")).as("ready after " + bad).isEqualTo(200);
            }
            BadInputs.assertNoStackTrace("discovery's output", discovery.output());
            assertThat(discovery.output()).doesNotContain("OutOfMemoryError");

            discovery.terminate();
            assertThat(discovery.awaitExit(WAIT).status()).isEqualTo(PackagedAgent.STOPPED_BY_SIGTERM);
        }
    }
}
