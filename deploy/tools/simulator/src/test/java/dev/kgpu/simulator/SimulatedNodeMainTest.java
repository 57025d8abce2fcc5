package dev.kgpu.simulator;

import dev.kgpu.simulator.agents.Agent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The entry point's exit statuses and messages for what stops it before any agent runs. */
class SimulatedNodeMainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SimulatedNodeMain.run(List.of(args), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpPrintsTheOptions() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: simulated-node", "--exit-when-ready");
    }

    @Test
    void badOptionsExitTwoWithOneLineEach(@TempDir Path root) throws IOException {
        checkout(root);

        assertThat(run("--root=" + root, "--profile=a800", "--mig-strategy=half")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8).lines().toList()).hasSize(2).allMatch(l -> l.startsWith("kgpu-sim: --"));
    }

    @Test
    void unbuiltAgentsAreNamedWithTheCommandThatBuildsThem(@TempDir Path root) throws IOException {
        checkout(root);
        Files.createDirectories(root.resolve("nvml-ffm/nvml/target/mock"));
        Files.writeString(root.resolve("nvml-ffm/nvml/target/mock/libnvidia-ml.so.1"), "");
        Files.createDirectories(root.resolve("plugin/target/quarkus-app"));
        Files.writeString(root.resolve("plugin/target/quarkus-app/quarkus-run.jar"), "");

        assertThat(run("--root=" + root, "--profile=rtx3060", "--work-dir=" + root.resolve("node"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("the agents are not built (discovery/target/quarkus-app/"
                        + "quarkus-run.jar, exporter/target/quarkus-app/quarkus-run.jar, validator/target/quarkus-app/"
                        + "quarkus-run.jar missing): run ./mvnw -B -DskipTests package first");
        assertThat(root.resolve("node")).doesNotExist();
    }

    @Test
    void aTakenPortIsNamedWithTheOptionThatMovesIt(@TempDir Path root) throws IOException {
        checkout(root);
        Files.createDirectories(root.resolve("nvml-ffm/nvml/target/mock"));
        Files.writeString(root.resolve("nvml-ffm/nvml/target/mock/libnvidia-ml.so.1"), "");
        for (Agent agent : Agent.values()) {
            Files.createDirectories(agent.appDirectory(root));
            Files.writeString(agent.appDirectory(root).resolve("quarkus-run.jar"), "");
        }
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = taken.getLocalPort();

            assertThat(run("--root=" + root, "--profile=rtx3060", "--exporter-port=" + port)).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("--exporter-port was '" + port
                    + "' but that port is in use");
        }
    }

    private static void checkout(Path root) throws IOException {
        Files.createDirectories(root.resolve("nvml-ffm/nvml/mock/profiles"));
        Files.writeString(root.resolve("pom.xml"), "<project/>");
        Files.writeString(root.resolve("nvml-ffm/nvml/mock/profiles/rtx3060.json"), "{}");
    }
}
