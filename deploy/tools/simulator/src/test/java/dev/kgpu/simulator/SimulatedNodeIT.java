package dev.kgpu.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's main job end to end: the simulated node as a process of its own, with the four real agents
 * as its child processes, exactly as {@code ./mvnw -Psimulated-node package} runs it.
 */
class SimulatedNodeIT {

    private static final Duration UP = Duration.ofSeconds(180);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void dgxA100NodeComesUpWithEveryAgentDoingItsJob(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        List<Long> agentPids;
        try (SimulatorProcess simulator = SimulatorProcess.start(dir, List.of("--profile=dgx-a100", "--exit-when-ready"))) {
            assertThat(simulator.awaitExit(UP)).as(simulator.output()).isZero();
            String output = simulator.output();
            assertThat(output).contains("kgpu simulated node is ready: kgpu-sim-node",
                    "Stopping the node (--exit-when-ready).", "kgpu-sim: stopped");

            // what the API server held: the kubelet's capacity and allocatable, discovery's labels
            JsonNode node = JSON.readTree(simulator.workDir().resolve("node.json").toFile());
            assertThat(node.path("status").path("capacity").path("nvidia.com/gpu").asText()).isEqualTo("8");
            assertThat(node.path("status").path("allocatable").path("nvidia.com/gpu").asText()).isEqualTo("8");
            JsonNode labels = node.path("metadata").path("labels");
            assertThat(labels.path("nvidia.com/gpu.product").asText()).isEqualTo("NVIDIA-A100-SXM4-80GB");
            assertThat(labels.path("nvidia.com/gpu.count").asText()).isEqualTo("8");
            assertThat(labels.has("nvidia.com/gpu.present")).as("gpu-operator's label, never discovery's").isFalse();
            assertThat(labels.path("nvidia.com/gpu.machine").asText()).isEqualTo("kgpu-simulated-dgx-a100");

            // what the exporter served: a series of the demo pod's GPU, attributed through PodResources
            List<String> metrics = Files.readAllLines(simulator.workDir().resolve("metrics.txt"));
            assertThat(metrics).anySatisfy(line -> assertThat(line)
                    .startsWith("DCGM_FI_DEV_GPU_TEMP{")
                    .contains("modelName=\"NVIDIA A100-SXM4-80GB\"", "Hostname=\"kgpu-sim-node\"",
                            "container=\"main\",namespace=\"ml\",pod=\"cuda-demo\"}"));

            // the validator's verdicts, each from its own stdout
            JsonNode summary = JSON.readTree(simulator.workDir().resolve("summary.json").toFile());
            List<String> verdicts = new ArrayList<>();
            summary.path("verdicts").forEach(v -> verdicts.add(v.path("component").asText() + " " + v.path("result").asText()));
            assertThat(verdicts).containsExactly("driver PASSED", "toolkit PASSED", "plugin PASSED", "cuda PASSED");
            assertThat(Files.readString(simulator.workDir().resolve("logs/validator.out")))
                    .contains("cuda PASSED pod nvidia-cuda-validator-").contains("Test PASSED");
            assertThat(summary.path("healthy").asBoolean()).isTrue();
            assertThat(summary.path("resources").get(0).path("endpoint").asText()).isEqualTo("nvidia-gpu.sock");
            agentPids = pids(summary);
            assertThat(agentPids).hasSize(4);
        }
        // stopped cleanly: no agent left, no socket left
        assertThat(agentPids).allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty());
        assertThat(sockets(dir.resolve("node"))).isEmpty();
    }

    @Test
    void oneGpuNodeWithCdiLeavesASecondGpuPodPendingAndStopsCleanlyOnSigterm(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        try (SimulatorProcess simulator = SimulatorProcess.start(dir, List.of("--profile=rtx3060", "--device-list-strategy=cdi-cri"))) {
            simulator.awaitOutput("Press Ctrl-C to stop the node.", UP);
            // the plugin hands out CDI names and writes the spec they resolve through; the runtime injects from it
            Path spec = simulator.workDir().resolve("var/run/cdi/k8s.device-plugin.nvidia.com-gpu.json");
            assertThat(spec).isRegularFile();
            assertThat(Files.readString(simulator.workDir().resolve("logs/validator.out")))
                    .contains("resolves all 1 devices the plugin hands out");
            JsonNode summary = JSON.readTree(simulator.workDir().resolve("summary.json").toFile());
            assertThat(summary.path("allocatable").path("nvidia.com/gpu").asText()).isEqualTo("1");
            assertThat(summary.path("labels").path("nvidia.com/gpu.mode").asText()).isEqualTo("graphics");
            assertThat(summary.path("demo").path("phase").asText()).isEqualTo("Running");

            Config config = Config.fromKubeconfig(Files.readString(simulator.workDir().resolve("kubeconfig")));
            try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
                assertThat(client.pods().inNamespace("ml").withName("cuda-demo").inContainer("main").getLog()).contains(
                        "CDI devices k8s.device-plugin.nvidia.com/gpu=GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 gave it:",
                        "  device node /dev/nvidia0 (host " + simulator.workDir().resolve("dev/nvidia0") + ")",
                        "  mount /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15",
                        "  mount /usr/bin/nvidia-smi");
                // the demo pod holds the only GPU: a second one stays Pending, as the scheduler says
                client.pods().inNamespace("ml").resource(samplePod("second")).create();
                Pod pending = await("ml/second Unschedulable", () -> Optional.ofNullable(
                        client.pods().inNamespace("ml").withName("second").get()).filter(p -> p.getStatus() != null
                        && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Unschedulable".equals(c.getReason()))));
                assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
                assertThat(pending.getStatus().getConditions()).anySatisfy(c -> {
                    assertThat(c.getType()).isEqualTo("PodScheduled");
                    assertThat(c.getStatus()).isEqualTo("False");
                    assertThat(c.getMessage()).isEqualTo("0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
                });

                // the GPU freed, the scheduler retries: the sample runs on it and passes
                client.pods().inNamespace("ml").withName("cuda-demo").delete();
                Pod succeeded = await("ml/second Succeeded", () -> Optional.ofNullable(
                        client.pods().inNamespace("ml").withName("second").get())
                        .filter(p -> p.getStatus() != null && "Succeeded".equals(p.getStatus().getPhase())));
                assertThat(succeeded.getSpec().getNodeName()).isEqualTo("kgpu-sim-node");
                assertThat(client.pods().inNamespace("ml").withName("second").inContainer("main").getLog())
                        .contains("Test PASSED");
            }

            List<Long> agentPids = pids(summary).subList(0, 3); // the validator ran one-shot and is gone already
            simulator.terminate();
            assertThat(simulator.awaitExit(Duration.ofSeconds(60))).as("exit status after SIGTERM").isEqualTo(143);
            assertThat(simulator.output()).contains("kgpu-sim: stopped (plugin exited");
            assertThat(agentPids).allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty());
            assertThat(sockets(simulator.workDir())).isEmpty();
            assertThat(spec).as("the plugin removes its CDI spec when it stops").doesNotExist();
        }
    }

    @Test
    void migGpusAdvertisedWholeUnderTheDefaultStrategyFailTheValidatorAtTheRuntimeLayer(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        try (SimulatorProcess simulator = SimulatorProcess.start(dir, List.of("--profile=mig-mixed", "--exit-when-ready"))) {
            assertThat(simulator.awaitExit(UP)).as(simulator.output()).isEqualTo(1);

            JsonNode summary = JSON.readTree(simulator.workDir().resolve("summary.json").toFile());
            // MIG strategy none: the four MIG-enabled GPUs are advertised whole, as NVIDIA's plugin does
            assertThat(summary.path("capacity").path("nvidia.com/gpu").asText()).isEqualTo("4");
            assertThat(summary.path("labels").path("nvidia.com/mig.capable").asText()).isEqualTo("true");
            // ... and CUDA finds no device in a container given a whole MIG-enabled GPU
            JsonNode plugin = summary.path("verdicts").get(2);
            assertThat(plugin.path("component").asText()).isEqualTo("plugin");
            assertThat(plugin.path("result").asText()).isEqualTo("FAILED");
            assertThat(plugin.path("detail").asText()).startsWith("runtime: pod nvidia-device-plugin-validator-")
                    .endsWith("'Failed to allocate device vector A (error code no CUDA-capable device is detected)!'");
            assertThat(summary.path("demo").path("attributed").asBoolean()).isFalse();
            assertThat(summary.path("demo").path("note").asText()).contains("Try --mig-strategy=mixed");
            assertThat(simulator.output()).contains("kgpu simulated node is up, with problems", "validator: cuda SKIPPED");
        }
    }

    private static Pod samplePod(String name) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata()
                .withNewSpec().withRestartPolicy("Never")
                .addNewContainer().withName("main").withImage("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0")
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1")).endResources()
                .endContainer().endSpec().build();
    }

    /** Polls {@code probe} until it has a value, for at most 90 s. */
    static <T> T await(String what, java.util.function.Supplier<Optional<T>> probe) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    private static List<Long> pids(JsonNode summary) {
        List<Long> pids = new ArrayList<>();
        summary.path("agents").forEach(a -> pids.add(a.path("pid").asLong()));
        return pids;
    }

    private static List<Path> sockets(Path workDir) throws IOException {
        List<Path> sockets = new ArrayList<>();
        for (Path dir : List.of(workDir.resolve("device-plugins"), workDir.resolve("pod-resources"))) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> entries = Files.list(dir)) {
                    entries.filter(p -> p.getFileName().toString().endsWith(".sock")).forEach(sockets::add);
                }
            }
        }
        return sockets;
    }
}
