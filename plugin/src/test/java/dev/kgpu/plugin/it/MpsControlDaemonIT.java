package dev.kgpu.plugin.it;

import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.plugin.devices.ComputeModes.Mode;
import dev.kgpu.plugin.mps.MpsControlDaemon;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.MockMpsDaemon;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kgpu's MPS control daemon agent on the mock NVML with the fake {@code nvidia-cuda-mps-control}: NVIDIA's folders,
 * limits and files, the compute modes set through NVML and given back, reloads, a daemon that dies, and the failures
 * that must leave nothing started.
 */
class MpsControlDaemonIT {

    static final String GPU = "nvidia.com/gpu";

    static String mps(int replicas, boolean renameByDefault) {
        return """
                version: v1
                sharing:
                  mps:
                    renameByDefault: %s
                    resources:
                    - name: nvidia.com/gpu
                      replicas: %d
                """.formatted(renameByDefault, replicas);
    }

    @TempDir
    Path dir;

    final MockNvml mock = MockNvml.load();

    MockProfile useProfile(String name) {
        mock.reset();
        mock.useProfile(name);
        return MockNvml.profile(name);
    }

    @AfterEach
    void resetMock() {
        mock.reset();
    }

    static List<String> uuids(MockProfile profile) {
        return IntStream.range(0, profile.gpus().size()).mapToObj(i -> MockProfile.string(profile.gpu(i), "uuid")).toList();
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
                && !procState(pid).equals("Z");
    }

    static String procState(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch (Exception e) {
            return "gone";
        }
    }

    @Test
    void startsOneDaemonWithNvidiasLimitsAndFilesAndStopsItGivingTheModesBack() {
        List<String> gpus = uuids(useProfile("dgx-a100"));
        long pid;
        MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(10, false));
        try {
            MpsControlDaemon.Status status = agent.awaitReady();
            assertThat(status.running()).containsOnlyKeys(GPU);
            pid = status.running().get(GPU);
            assertThat(alive(pid)).isTrue();
            assertThat(agent.paths().ready()).exists();
            assertThat(agent.paths().started(GPU)).exists();
            assertThat(agent.root.resolve("nvidia.com/gpu/pipe/control")).exists();
            assertThat(agent.root.resolve("nvidia.com/gpu/log/control.log")).exists();
            // 80 GiB / 10 replicas; 100 / 10 replicas
            assertThat(agent.ask(GPU, "get_default_active_thread_percentage").output()).isEqualTo("10.0");
            for (int index = 0; index < gpus.size(); index++) {
                assertThat(agent.ask(GPU, "get_default_device_pinned_mem_limit " + index).output())
                        .as("GPU %d's pinned memory", index).isEqualTo("8192M");
            }
            assertThat(gpus).allSatisfy(uuid -> assertThat(agent.computeMode(uuid)).isEqualTo(Mode.EXCLUSIVE_PROCESS));
        } finally {
            agent.close();
        }
        assertThat(alive(pid)).as("the daemon ended with the agent").isFalse();
        assertThat(dir.resolve("mps/.ready")).doesNotExist();
        assertThat(dir.resolve("mps/nvidia.com/gpu/.started")).doesNotExist();
        assertThat(dir.resolve("mps/nvidia.com/gpu/log")).doesNotExist();
        assertThat(dir.resolve("mps/nvidia.com/gpu/.compute-modes")).doesNotExist();
        try (MockMpsDaemon probe = MockMpsDaemon.start(dir.resolve("probe"), "version: v1\n")) {
            assertThat(gpus).allSatisfy(uuid -> assertThat(probe.computeMode(uuid)).isEqualTo(Mode.DEFAULT));
        }
    }

    @Test
    void aReloadStopsTheDaemonAndStartsTheNewConfigsUnderItsName() {
        useProfile("dgx-a100");
        try (MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(10, false))) {
            long first = agent.awaitReady().running().get(GPU);

            agent.rewriteConfig(mps(2, true));
            agent.supervisor.reload();

            Await.until(() -> agent.daemon.status().ready() && agent.daemon.status().running().containsKey(GPU + ".shared"),
                    MockMpsDaemon.WAIT, "the daemon of nvidia.com/gpu.shared; last " + agent.daemon.status());
            assertThat(agent.daemon.status().running()).containsOnlyKeys(GPU + ".shared");
            assertThat(alive(first)).as("the first daemon ended").isFalse();
            assertThat(agent.ask(GPU + ".shared", "get_default_active_thread_percentage").output()).isEqualTo("50.0");
            assertThat(agent.ask(GPU + ".shared", "get_default_device_pinned_mem_limit 7").output()).isEqualTo("40960M");
            assertThat(agent.ask(GPU, "get_default_active_thread_percentage").succeeded()).isFalse();
        }
    }

    @Test
    void aChangedConfigFileRestartsTheDaemonsAsSighupDoes() {
        useProfile("rtx3060");
        try (MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(4, false))) {
            long first = agent.awaitReady().running().get(GPU);

            agent.rewriteConfig(mps(5, false)); // no SIGHUP: the agent sees the file's new contents itself

            Await.until(() -> agent.daemon.status().ready() && agent.daemon.status().running().get(GPU) != first,
                    MockMpsDaemon.WAIT, "a daemon of the new config; last " + agent.daemon.status());
            assertThat(alive(first)).as("the first daemon ended").isFalse();
            assertThat(agent.ask(GPU, "get_default_active_thread_percentage").output()).isEqualTo("20.0");
        }
    }

    @Test
    void aDaemonThatDiesIsStartedAgain() {
        useProfile("rtx3060");
        try (MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(4, false))) {
            long first = agent.awaitReady().running().get(GPU);

            ProcessHandle.of(first).orElseThrow().destroyForcibly();

            Await.until(() -> agent.daemon.status().ready() && agent.daemon.status().running().get(GPU) != first,
                    MockMpsDaemon.WAIT, "a new daemon; last " + agent.daemon.status());
            assertThat(agent.ask(GPU, "get_default_active_thread_percentage").output()).isEqualTo("25.0");
            assertThat(agent.paths().started(GPU)).exists();
        }
    }

    @Test
    void aGpuAClaimsDaemonHoldsIsNotTakenFromTheClaimAndTheDaemonStartsOnceTheClaimGaveItBack() throws Exception {
        List<String> gpus = uuids(useProfile("rtx3060"));
        // the DRA driver's daemon of a claim holds the GPU: its .compute-modes lists it, and it set EXCLUSIVE_PROCESS
        Path claim = dir.resolve("mps/claims/0b5c7e4e-claim");
        Files.createDirectories(claim);
        Files.writeString(claim.resolve(".compute-modes"), gpus.getFirst() + " DEFAULT\n");
        try (MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(4, false))) {
            agent.setComputeMode(gpus.getFirst(), Mode.EXCLUSIVE_PROCESS);

            String problem = Await.value(() -> agent.daemon.status().problem().filter(p -> p.contains("held by"))
                    .orElse(null), "the claim's GPU refused");

            assertThat(problem).isEqualTo("GPU 0 (" + gpus.getFirst() + ") of nvidia.com/gpu is held by the MPS control"
                    + " daemon of claim 0b5c7e4e-claim (" + claim.resolve(".compute-modes") + " lists it); one GPU serves one"
                    + " MPS daemon, so the daemon of nvidia.com/gpu starts once that one has given the GPU back");
            assertThat(agent.daemon.status().ready()).isFalse();
            assertThat(agent.paths().ready()).doesNotExist();
            assertThat(agent.paths().computeModes(GPU)).as("the claim's GPU not noted as this daemon's").doesNotExist();
            assertThat(agent.ask(GPU, "get_default_active_thread_percentage").succeeded()).as("no daemon").isFalse();

            // the claim is unprepared: its daemon gives the mode back and its folder goes
            agent.setComputeMode(gpus.getFirst(), Mode.DEFAULT);
            Files.delete(claim.resolve(".compute-modes"));

            agent.awaitReady();
            assertThat(agent.ask(GPU, "get_default_active_thread_percentage").output()).isEqualTo("25.0");
            assertThat(agent.computeMode(gpus.getFirst())).isEqualTo(Mode.EXCLUSIVE_PROCESS);
        }
    }

    @Test
    void aMissingControlProgramIsOneLineAndStartsNothing() {
        List<String> gpus = uuids(useProfile("dgx-a100"));
        try (MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(10, false),
                Map.of("KGPU_MPS_CONTROL", dir.resolve("bin/nvidia-cuda-mps-control").toString()))) {
            String problem = Await.value(() -> agent.daemon.status().problem().filter(p -> p.contains("not found"))
                    .orElse(null), "the missing program");
            assertThat(problem).isEqualTo(dir.resolve("bin/nvidia-cuda-mps-control") + " was not found ("
                    + dir.resolve("bin/nvidia-cuda-mps-control") + "); MPS needs the driver's compute utilities (the NVIDIA"
                    + " container toolkit mounts them with NVIDIA_DRIVER_CAPABILITIES=compute,utility)");
            assertThat(agent.daemon.status().ready()).isFalse();
            assertThat(agent.paths().ready()).doesNotExist();
            assertThat(gpus).allSatisfy(uuid -> assertThat(agent.computeMode(uuid)).isEqualTo(Mode.DEFAULT));
        }
    }

    @Test
    void anMpsRootThatIsNotWritableIsOneLineAndLeavesTheModesAsTheyWere() throws Exception {
        List<String> gpus = uuids(useProfile("dgx-a100"));
        Path notAFolder = Files.writeString(dir.resolve("root-is-a-file"), "");
        try (MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(10, false),
                Map.of("KGPU_MPS_CONTAINER_ROOT", notAFolder.toString()))) {
            String problem = Await.value(() -> agent.daemon.status().problem().filter(p -> p.contains("not writable"))
                    .orElse(null), "the root not writable");
            assertThat(problem).startsWith("the MPS root " + notAFolder + " is not writable (");
            assertThat(agent.daemon.status().running()).isEmpty();
            assertThat(gpus).allSatisfy(uuid -> assertThat(agent.computeMode(uuid)).isEqualTo(Mode.DEFAULT));
        }
    }

    @Test
    void aProhibitedGpuIsOneLineAndNoDaemonIsLeftRunning() {
        List<String> gpus = uuids(useProfile("dgx-a100"));
        try (MockMpsDaemon probe = MockMpsDaemon.start(dir.resolve("probe"), "version: v1\n")) {
            probe.setComputeMode(gpus.get(3), Mode.PROHIBITED);
        }
        try (MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(10, false))) {
            String problem = Await.value(() -> agent.daemon.status().problem().filter(p -> p.contains("PROHIBITED"))
                    .orElse(null), "the prohibited GPU");
            assertThat(problem).startsWith("GPU 3 (" + gpus.get(3) + ") of nvidia.com/gpu has compute mode PROHIBITED");
            assertThat(agent.ask(GPU, "get_default_active_thread_percentage").succeeded()).as("no daemon answers").isFalse();
            assertThat(agent.paths().ready()).doesNotExist();
            assertThat(agent.computeMode(gpus.get(0))).isEqualTo(Mode.DEFAULT);
            assertThat(agent.computeMode(gpus.get(3))).isEqualTo(Mode.PROHIBITED);
        }
    }

    @Test
    void migDevicesAreRefusedWithOneLineAndTheAgentExits() {
        useProfile("mig-mixed");
        try (MockMpsDaemon agent = MockMpsDaemon.start(dir, mps(2, false))) {
            assertThat(agent.supervisor.awaitExit(MockMpsDaemon.WAIT)).hasValue(1);
            assertThat(agent.exits).hasSize(1);
            assertThat(agent.exits.getFirst()).startsWith("MPS cannot share GPU 0 (").contains("it has MIG enabled");
            assertThat(agent.root.resolve("nvidia.com")).doesNotExist();
        }
    }
}
