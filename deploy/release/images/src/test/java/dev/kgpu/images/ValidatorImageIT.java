package dev.kgpu.images;

import dev.kgpu.exporter.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The validator's image as the chart's main validator container runs it (daemon mode) on an 8 x A100 mock
 * node: driver and toolkit validated, the status files written into the host's validations folder, readiness
 * UP; root (the folder is root's) without capabilities, on a read-only root.
 */
@Images.WhenBuilt("validator")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ValidatorImageIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private static Path host;
    private static ImageContainer validator;
    private static int port;

    @BeforeAll
    static void start() throws IOException {
        host = Files.createTempDirectory("kgpu-validator-image");
        Path dev = Files.createDirectories(host.resolve("dev-root/dev"));
        for (String node : new String[]{"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia0", "nvidia1", "nvidia2",
                "nvidia3", "nvidia4", "nvidia5", "nvidia6", "nvidia7"}) {
            Files.createFile(dev.resolve(node));
        }
        Files.createDirectories(host.resolve("validations"));
        port = Images.freePort();
        validator = ImageContainer.of("validator")
                .mockNvml("dgx-a100")
                .bind(host.resolve("dev-root"), "/host-dev", true)
                .bind(host.resolve("validations"), "/run/nvidia/validations", false)
                .env("QUARKUS_HTTP_PORT", Integer.toString(port))
                .env("KGPU_VALIDATOR_MODE", "daemon")
                .env("COMPONENT", "driver,toolkit")
                .env("NVIDIA_DEV_ROOT", "/host-dev")
                .env("KGPU_SIMULATED_DEVICE_NODES", "true")
                .start();
    }

    @AfterAll
    static void stop() {
        if (validator != null) {
            validator.close();
        }
        ImageContainer.delete(host);
    }

    /** The image's command line, as the chart's gate and preStop spell it. */
    static final List<String> JAVA = Images.command("validator");

    @Test
    @Order(1)
    void validatesTheNodeAndWritesItsStatusFiles() {
        Await.until("/q/health/ready to answer UP", WAIT, () -> Http.up(port, "/q/health/ready"));
        assertThat(host.resolve("validations/driver-ready")).isRegularFile();
        assertThat(host.resolve("validations/toolkit-ready")).isRegularFile();
        assertThat(Http.up(port, "/q/health/live")).isTrue();
        var status = validator.processStatus();
        assertThat(status.get("Uid")).startsWith("0\t");
        assertThat(status.get("CapEff")).isEqualTo("0000000000000000");
        assertThat(validator.maps(Images.mappedFile("validator"))).as("the agent runs from %s", Images.mappedFile("validator")).isTrue();
    }

    @Test
    @Order(3)
    void itsPreStopCommandRemovesTheStatusFilesWithoutAShell() {
        Await.until("/q/health/ready to answer UP", WAIT, () -> Http.up(port, "/q/health/ready"));
        assertThat(host.resolve("validations/driver-ready")).isRegularFile();

        List<String> preStop = new ArrayList<>(JAVA);
        preStop.addAll(List.of("remove-ready-files", "/run/nvidia/validations"));
        ImageContainer.Result removed = validator.exec(preStop, WAIT);

        assertThat(removed.status()).as(removed.output()).isZero();
        assertThat(host.resolve("validations/driver-ready")).doesNotExist();
        assertThat(host.resolve("validations/toolkit-ready")).doesNotExist();
    }

    @Test
    @Order(2)
    void theChartsGateWaitsForAStatusFileAsNonroot() throws IOException {
        Path gateFolder = Files.createDirectories(host.resolve("gate"));
        List<String> gate = new ArrayList<>(JAVA);
        gate.addAll(List.of("wait-for", "/run/nvidia/validations/toolkit-ready"));
        try (ImageContainer waiting = ImageContainer.of("validator").user(65532, 65532).command(gate)
                .bind(gateFolder, "/run/nvidia/validations", true).start()) {
            Await.until("the gate to say it waits", WAIT, () -> waiting.output().contains("waiting for /run/nvidia/validations/toolkit-ready"));
            assertThat(waiting.running()).isTrue();

            Files.writeString(gateFolder.resolve("toolkit-ready"), "");

            ImageContainer.Result done = waiting.await(WAIT);
            assertThat(done.status()).as(done.output()).isZero();
            assertThat(done.output()).contains("/run/nvidia/validations/toolkit-ready is there");
        }
    }
}
