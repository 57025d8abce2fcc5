package dev.kgpu.validator.kubernetes;

import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.validator.core.CudaValidator;
import dev.kgpu.validator.core.PluginValidator;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * The packaged validator ({@code target/quarkus-app}, run as {@code java -jar quarkus-run.jar} with
 * deploy/release/images/jvm.options) in daemon mode validating an 8 × A100 mock node end to end: driver (NVML),
 * toolkit (device nodes under a simulated dev root), plugin (the Node's {@code nvidia.com/gpu} and a sample
 * pod) and cuda (a vectorAdd sample pod), against the Kubernetes API test server with
 * {@link ScriptedNode} as scheduler, kubelet and container runtime. Readiness turns UP with every verdict and the four
 * {@code *-ready} files are written. With {@code quarkus.package.jar.aot.enabled} this run is what Java's AOT
 * cache ({@code app.aot}) is trained on; a one-shot run (the init containers) takes the same pass.
 *
 * <p>The validator POM's failsafe configuration gives the launched process its settings (daemon mode,
 * {@code NODE_NAME}, {@code OPERATOR_NAMESPACE}, {@code OUTPUT_DIR}, {@code NVIDIA_DEV_ROOT},
 * {@code KGPU_SIMULATED_DEVICE_NODES=true}, {@code SLEEP_INTERVAL_SECONDS=1}) and {@code MOCK_NVML_PROFILE};
 * {@link Cluster} creates the Node, the dev root and the scheduler before the validator starts.
 */
@QuarkusIntegrationTest
@WithKubernetesTestServer(crud = true, setup = PackagedValidatorIT.Cluster.class)
class PackagedValidatorIT {

    static final String NODE = System.getProperty("quarkus.test.env.NODE_NAME");
    static final String NS = System.getProperty("quarkus.test.env.OPERATOR_NAMESPACE");
    static final Path OUTPUT = Path.of(System.getProperty("quarkus.test.env.OUTPUT_DIR"));

    @KubernetesTestServer
    KubernetesServer server;

    /** Runs before the validator starts: the Node with 8 GPUs, the dev root, and the scheduler and kubelet. */
    public static final class Cluster implements Consumer<KubernetesServer> {

        static volatile ScriptedNode cluster;

        @Override
        public void accept(KubernetesServer server) {
            KubernetesClient client = server.getClient();
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            Map<String, Quantity> gpus = Map.of("cpu", new Quantity("64"), "memory", new Quantity("1Ti"),
                    "nvidia.com/gpu", new Quantity("8"));
            client.nodes().withName(NODE).editStatus(n -> {
                n.setStatus(new NodeStatus());
                n.getStatus().setCapacity(gpus);
                n.getStatus().setAllocatable(gpus);
                return n;
            });
            try {
                Path dev = Files.createDirectories(Path.of(System.getProperty("quarkus.test.env.NVIDIA_DEV_ROOT")).resolve("dev"));
                touch(dev.resolve("nvidiactl"));
                touch(dev.resolve("nvidia-uvm"));
                try (Nvml nvml = Nvml.open()) {
                    for (GpuDevice gpu : nvml.devices()) {
                        touch(dev.resolve("nvidia" + gpu.minorNumber()));
                    }
                }
                deleteTree(OUTPUT);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            cluster = ScriptedNode.start(client, server, NODE);
        }

        private static void touch(Path file) throws IOException {
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
        }
    }

    @AfterAll
    static void stopTheCluster() {
        if (Cluster.cluster != null) {
            Cluster.cluster.close();
        }
    }

    @Test
    void validatesTheWholeNodeAndReportsItReady() throws IOException {
        // a start and a whole pass with two sample pods at a 1 s poll: seconds on a quiet machine, generous for
        // a loaded one (only a failure waits this long)
        awaitReady(Duration.ofSeconds(180));

        given().get("/q/health/ready").then().statusCode(200)
                .body("checks[0].name", equalTo("gpu-node-validation"))
                .body("checks[0].data.driver", equalTo("driver PASSED driver 550.54.15, CUDA 12.4, 8 GPUs answered"
                        + " (NVIDIA A100-SXM4-80GB, 655360 MiB in all)"))
                .body("checks[0].data.toolkit", equalTo("toolkit PASSED 10 device nodes under "
                        + System.getProperty("quarkus.test.env.NVIDIA_DEV_ROOT")))
                .body("checks[0].data.plugin", org.hamcrest.Matchers.startsWith("plugin PASSED"))
                .body("checks[0].data.cuda", org.hamcrest.Matchers.startsWith("cuda PASSED"));
        given().get("/q/health/live").then().statusCode(200);

        assertThat(Files.readString(OUTPUT.resolve("driver-ready"))).contains("DRIVER_VERSION=550.54.15")
                .contains("CUDA_DRIVER_VERSION=12.4");
        assertThat(OUTPUT.resolve("toolkit-ready")).exists();
        assertThat(OUTPUT.resolve("plugin-ready")).exists();
        assertThat(OUTPUT.resolve("cuda-ready")).exists();
        // both sample pods ran on the node and were deleted afterwards
        assertThat(Cluster.cluster.seenPods()).anyMatch(p -> p.startsWith(PluginValidator.GENERATE_NAME))
                .anyMatch(p -> p.startsWith(CudaValidator.GENERATE_NAME));
        assertThat(server.getClient().pods().inNamespace(NS).list().getItems()).isEmpty();
    }

    /** Polls readiness until it is UP; fails with the last answer when {@code timeout} passes. */
    static void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            var response = given().get("/q/health/ready");
            if (response.statusCode() == 200) {
                return;
            }
            last = response.asString();
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        }
        throw new AssertionError("readiness not UP after " + timeout + "; last answer: " + last);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
