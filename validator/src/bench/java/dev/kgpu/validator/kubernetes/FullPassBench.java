package dev.kgpu.validator.kubernetes;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.adapters.FileSystemDeviceNodes;
import dev.kgpu.validator.adapters.KubernetesCluster;
import dev.kgpu.validator.adapters.NvmlGpuDriver;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.ComponentValidator;
import dev.kgpu.validator.core.CudaValidator;
import dev.kgpu.validator.core.DriverRoots;
import dev.kgpu.validator.core.DriverValidator;
import dev.kgpu.validator.core.Evidence;
import dev.kgpu.validator.core.PluginValidator;
import dev.kgpu.validator.core.SamplePod;
import dev.kgpu.validator.core.SamplePodRunner;
import dev.kgpu.validator.core.ToolkitValidator;
import dev.kgpu.validator.core.ValidationPass;
import dev.kgpu.validator.core.Verdict;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark (not a test of speed: it asserts only that every pass is valid): one full validation pass -
 * driver and toolkit through FFM against the mock NVML (dgx-a100, 8 GPUs), plugin and cuda against the
 * Kubernetes API test server with the simulated scheduler/kubelet - repeated, with the wall time of each
 * pass and component recorded. Simulated time replaces the 5 s poll sleeps, so the figures are the
 * validator's own work plus the API round trips and the simulated cluster's reactions.
 *
 * <p>Run: {@code ./mvnw -B -pl validator -am -Pbench -Dexec.skip=true verify -Dtest=None
 * -Dsurefire.failIfNoSpecifiedTests=false}; results in {@code validator/target/validator-bench.txt}.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
class FullPassBench {

    static final String NS = "gpu-operator";
    static final String NODE = "gpu-node-1";
    static final int WARMUP = 5;
    static final int MEASURED = 30;

    @KubernetesTestServer
    KubernetesServer server;

    @Inject
    KubernetesClient client;

    /** Records each component's wall time. */
    private static ComponentValidator timed(ComponentValidator delegate, Map<Component, List<Double>> times) {
        return new ComponentValidator() {
            @Override
            public Component component() {
                return delegate.component();
            }

            @Override
            public Evidence validate() throws InterruptedException {
                long start = System.nanoTime();
                try {
                    return delegate.validate();
                } finally {
                    times.computeIfAbsent(delegate.component(), c -> new ArrayList<>())
                            .add((System.nanoTime() - start) / 1e6);
                }
            }
        };
    }

    @Test
    void oneFullValidationPass() throws Exception {
        MockNvml mock = MockNvml.load();
        mock.useProfile("dgx-a100");
        Path node = Files.createTempDirectory("validator-bench");
        Files.createDirectories(node.resolve("dev"));
        for (String device : List.of("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia1", "nvidia2", "nvidia3", "nvidia4",
                "nvidia5", "nvidia6", "nvidia7")) {
            Files.writeString(node.resolve("dev").resolve(device), "");
        }
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        client.nodes().withName(NODE).editStatus(n -> {
            n.setStatus(new NodeStatus());
            n.getStatus().setCapacity(Map.of("nvidia.com/gpu", new Quantity("8")));
            n.getStatus().setAllocatable(Map.of("nvidia.com/gpu", new Quantity("8")));
            return n;
        });

        try (ScriptedNode cluster = ScriptedNode.start(client, server, NODE)) {
            AtomicLong settleNanos = new AtomicLong();
            SimulatedTime time = new SimulatedTime(() -> {
                long start = System.nanoTime();
                cluster.awaitSettled(Duration.ofSeconds(10));
                settleNanos.addAndGet(System.nanoTime() - start);
            });
            NvmlGpuDriver driver = new NvmlGpuDriver(NvmlOptions.ofLibrary(mock.library()));
            KubernetesCluster api = new KubernetesCluster(client);
            SamplePod sample = new SamplePod("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0", Optional.empty(),
                    List.of(), Optional.empty());
            Duration interval = Duration.ofSeconds(5);
            Map<Component, List<Double>> perComponent = new EnumMap<>(Component.class);
            ValidationPass pass = new ValidationPass(Stream.of(
                    new DriverValidator(driver, new DriverRoots("/", "/host", "/", "/host")),
                    new ToolkitValidator(driver, new FileSystemDeviceNodes(node), Optional.empty(), true,
                            dev.kgpu.config.v1.MigStrategy.NONE),
                    new PluginValidator(api, NODE, NS, time, time, interval, 30, Optional.empty(), sample,
                            MigStrategy.SINGLE, Optional.empty()),
                    new CudaValidator(api, NODE, NS, new SamplePodRunner(api, time, time, interval, 60), sample,
                            MigStrategy.SINGLE)).map(v -> timed(v, perComponent)).toList(),
                    new DirectoryStatusFiles(node.resolve("validations")), false, interval, time);

            List<Double> millis = new ArrayList<>();
            List<Double> ownMillis = new ArrayList<>();
            for (int i = 0; i < WARMUP + MEASURED; i++) {
                settleNanos.set(0);
                long start = System.nanoTime();
                List<Verdict> verdicts = pass.run(ValidationPass.FilePolicy.REMOVE_FIRST);
                double elapsed = (System.nanoTime() - start) / 1e6;
                assertThat(verdicts).allMatch(Verdict::passed);
                if (i >= WARMUP) {
                    millis.add(elapsed);
                    ownMillis.add(elapsed - settleNanos.get() / 1e6);
                } else {
                    perComponent.clear();
                }
            }
            Collections.sort(millis);
            Collections.sort(ownMillis);
            String report = String.format(Locale.ROOT,
                    "full validation pass (driver+toolkit on mock dgx-a100 via FFM, plugin+cuda via API test server):"
                            + " %d passes after %d warm-up: min %.1f ms, median %.1f ms, p90 %.1f ms, max %.1f ms%n",
                    MEASURED, WARMUP, millis.getFirst(), millis.get(millis.size() / 2),
                    millis.get((int) (millis.size() * 0.9)), millis.getLast());
            StringBuilder components = new StringBuilder();
            perComponent.forEach((component, times) -> {
                Collections.sort(times);
                components.append(String.format(Locale.ROOT, "  %s: median %.1f ms, p90 %.1f ms%n", component,
                        times.get(times.size() / 2), times.get((int) (times.size() * 0.9))));
            });
            report += String.format(Locale.ROOT, "  without the waits for the simulated scheduler/kubelet to settle:"
                    + " median %.1f ms, p90 %.1f ms%n", ownMillis.get(ownMillis.size() / 2),
                    ownMillis.get((int) (ownMillis.size() * 0.9)));
            report += components;
            System.out.print(report);
            Files.writeString(Path.of("target/validator-bench.txt"), report);
        } finally {
            mock.reset();
        }
    }
}
