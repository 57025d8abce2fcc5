package dev.kgpu.validator;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The entry point end to end on a simulated node: the mock NVML (rtx3060, from KGPU_NVML_LIBRARY), fake
 * device nodes as regular files, settings from configuration only; one verdict line per component on stdout
 * and the exit code an init container needs.
 */
@QuarkusMainTest
@TestProfile(ValidatorMainTest.SimulatedNode.class)
class ValidatorMainTest {

    static final Path NODE = Path.of("target/main-test-node").toAbsolutePath();

    public static class SimulatedNode implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "COMPONENT", "driver,toolkit",
                    "OUTPUT_DIR", NODE.resolve("validations").toString(),
                    "NVIDIA_DEV_ROOT", NODE.toString(),
                    "KGPU_SIMULATED_DEVICE_NODES", "true");
        }
    }

    /** The verdict lines (the test launcher mixes log lines into the captured output). */
    private static List<String> verdicts(LaunchResult result) {
        return result.getOutput().lines().filter(l -> VERDICT.matcher(l).lookingAt()).toList();
    }

    private static final Pattern VERDICT = Pattern.compile("(driver|toolkit|plugin|cuda) (PASSED|FAILED|SKIPPED) ");

    @BeforeAll
    static void fakeDeviceNodes() throws IOException {
        Files.createDirectories(NODE.resolve("dev"));
        for (String node : new String[] {"nvidiactl", "nvidia-uvm", "nvidia0"}) {
            Files.writeString(NODE.resolve("dev").resolve(node), "");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 0)
    void printsOneVerdictPerComponentAndWritesTheReadyFiles(LaunchResult result) throws IOException {
        assertThat(verdicts(result)).containsExactly(
                "driver PASSED driver 550.54.15, CUDA 12.4, 1 GPU answered (NVIDIA GeForce RTX 3060, 12288 MiB in all)",
                "toolkit PASSED 3 device nodes under " + NODE);
        assertThat(Files.readAllLines(NODE.resolve("validations/driver-ready")))
                .contains("IS_HOST_DRIVER=true", "DRIVER_VERSION=550.54.15");
        assertThat(NODE.resolve("validations/toolkit-ready")).exists();
    }

    @Test
    @Launch(value = {"--component", "toolkit", "--dev-root", "/nonexistent-dev-root"}, exitCode = 1)
    void aFailingComponentExitsOneWithItsReasonOnOneLine(LaunchResult result) {
        assertThat(verdicts(result)).containsExactly(
                "toolkit FAILED runtime: device nodes dev/nvidiactl, dev/nvidia-uvm, dev/nvidia0 missing under"
                        + " /nonexistent-dev-root; the container runtime did not inject the GPUs (is the NVIDIA"
                        + " Container Toolkit configured for this runtime, or CDI enabled?)");
        assertThat(NODE.resolve("validations/toolkit-ready")).doesNotExist();
    }

    @Test
    @Launch(value = {"--sleep-interval-seconds", "soon", "--with-wait=maybe"}, exitCode = 1)
    void badSettingsExitOneWithOneLineNamingEachField(LaunchResult result) {
        assertThat((result.getOutput() + "\n" + result.getErrorOutput()).lines()
                .filter(line -> line.startsWith("kgpu-validator: invalid configuration: "))).singleElement().asString()
                .contains("--sleep-interval-seconds was 'soon' but it must be a whole number of seconds",
                        "--with-wait was 'maybe' but it must be a boolean");
        assertThat(verdicts(result)).isEmpty();
    }
}
