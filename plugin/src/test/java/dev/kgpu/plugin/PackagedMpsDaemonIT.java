package dev.kgpu.plugin;

import dev.kgpu.agent.testing.PackagedAgent;
import dev.kgpu.plugin.mps.ControlProgram;
import dev.kgpu.plugin.mps.MpsPaths;
import dev.kgpu.plugin.testing.MockMpsDaemon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged plugin started as NVIDIA's {@code mps-control-daemon} (its first argument, as the chart starts the
 * image), on the mock NVML with the mock's fake {@code nvidia-cuda-mps-control}: the daemon answers with the config's
 * limits, SIGHUP with a new config restarts it with the new ones, and SIGTERM ends the agent with status 0 and no
 * daemon left running. Under the native profile the same test runs the native executable.
 */
class PackagedMpsDaemonIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    static final String GPU = "nvidia.com/gpu";

    @TempDir
    Path dir;

    static String mps(int replicas) {
        return """
                version: v1
                sharing:
                  mps:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: %d
                """.formatted(replicas);
    }

    @Test
    void runsTheControlDaemonWithTheConfigsLimitsRestartsItOnSighupAndLeavesNothingRunning() throws IOException {
        Path config = Files.writeString(dir.resolve("config.yaml"), mps(4));
        MpsPaths paths = new MpsPaths(dir.resolve("mps"));
        Map<String, String> env = Map.of("CONFIG_FILE", config.toString(), "MOCK_NVML_PROFILE", "rtx3060",
                "KGPU_MPS_CONTAINER_ROOT", paths.root().toString(), "KGPU_MPS_CONTROL", MockMpsDaemon.fake().toString(),
                "QUARKUS_HTTP_PORT", Integer.toString(PackagedAgent.freePort()));

        try (PackagedAgent agent = PackagedAgent.start(dir, env, "mps-control-daemon")) {
            agent.await(() -> answer(paths, "get_default_active_thread_percentage").equals(Optional.of("25.0"))
                    && Files.exists(paths.ready()), WAIT, "a daemon answering 25.0 (100 / 4 replicas) and .ready written");
            long first = daemonPid(paths);
            assertThat(ProcessHandle.of(first).map(ProcessHandle::isAlive)).as("the first daemon").contains(true);

            Files.writeString(config, mps(5));
            agent.hangUp();
            agent.await(() -> answer(paths, "get_default_active_thread_percentage").equals(Optional.of("20.0"))
                    && Files.exists(paths.ready()), WAIT, "the daemon of the new config answering 20.0");
            long second = daemonPid(paths);
            assertThat(second).isNotEqualTo(first);
            agent.await(() -> !alive(first), WAIT, "the first daemon gone");

            agent.terminate();
            PackagedAgent.Exit exit = agent.awaitExit(WAIT);

            assertThat(exit.status()).as(exit.output()).isEqualTo(PackagedAgent.STOPPED_BY_SIGTERM);
            assertThat(alive(second)).as("the daemon ended with the agent").isFalse();
            assertThat(answer(paths, "get_default_active_thread_percentage")).as("no daemon answers").isEmpty();
            assertThat(paths.ready()).doesNotExist();
            assertThat(exit.output()).doesNotContain("Exception");
        }
    }

    /** The daemon's answer to {@code command} as a client asks it, or empty when no daemon answers. */
    static Optional<String> answer(MpsPaths paths, String command) {
        ControlProgram.Result result = new ControlProgram(MockMpsDaemon.fake(), ControlProgram.TIMEOUT)
                .send(paths.pipe(GPU), paths.log(GPU), command);
        return result.succeeded() ? Optional.of(result.output()) : Optional.empty();
    }

    static long daemonPid(MpsPaths paths) throws IOException {
        return Long.parseLong(Files.readString(paths.pipe(GPU).resolve(MpsPaths.PID_FILE)).strip());
    }

    static boolean alive(long pid) {
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            try { // a zombie of a daemon whose parent has not reaped it yet counts as gone
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
            } catch (IOException e) {
                return false;
            }
        }
        return false;
    }
}
