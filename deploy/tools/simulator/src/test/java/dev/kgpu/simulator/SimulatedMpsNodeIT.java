package dev.kgpu.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --sharing=mps} end to end: the plugin's mps-control-daemon mode runs the node's MPS control daemon (the mock's
 * fake nvidia-cuda-mps-control) with NVIDIA's limits, the plugin advertises the MPS replicas once it runs, the demo
 * pod runs on a replica with the daemon's pipe, discovery labels the node MPS-capable, and nothing is left running.
 */
class SimulatedMpsNodeIT {

    private static final Duration UP = Duration.ofSeconds(180);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theMpsControlDaemonServesTheReplicasThePluginAdvertises(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        Path pidFile;
        long daemonPid;
        try (SimulatorProcess simulator = SimulatorProcess.start(dir, List.of("--profile=dgx-a100", "--sharing=mps",
                "--exit-when-ready"))) {
            Path pipe = simulator.workDir().resolve("run/nvidia/mps/nvidia.com/gpu/pipe");
            pidFile = pipe.resolve("nvidia-cuda-mps-control.pid");
            simulator.awaitOutput("kgpu-sim: the MPS control daemon of nvidia.com/gpu runs", UP);
            daemonPid = Long.parseLong(Files.readString(pidFile).strip());
            assertThat(simulator.awaitExit(UP)).as(simulator.output()).isZero();
            // 80 GiB / 4 replicas, 100 / 4
            assertThat(simulator.output()).contains("kgpu-sim: the MPS control daemon of nvidia.com/gpu runs (" + pipe
                    + "): get_default_active_thread_percentage = 25.0, get_default_device_pinned_mem_limit 0 = 20480M");

            JsonNode summary = JSON.readTree(simulator.workDir().resolve("summary.json").toFile());
            assertThat(summary.path("capacity").path("nvidia.com/gpu").asText()).isEqualTo("32");
            assertThat(summary.path("labels").path("nvidia.com/mps.capable").asText()).isEqualTo("true");
            assertThat(summary.path("demo").path("phase").asText()).isEqualTo("Running");
            assertThat(Files.readString(simulator.workDir().resolve("logs/plugin.log")))
                    .contains("waiting for the MPS control daemon of nvidia.com/gpu")
                    .contains("the MPS control daemon of nvidia.com/gpu runs; advertising nvidia.com/gpu");
        }
        assertThat(ProcessHandle.of(daemonPid).filter(ProcessHandle::isAlive).filter(p -> !zombie(daemonPid)))
                .as("the MPS daemon ended with the node").isEmpty();
        assertThat(pidFile).doesNotExist();
    }

    private static boolean zombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
        } catch (Exception e) {
            return true;
        }
    }
}
