package dev.kgpu.discovery;

import dev.kgpu.discovery.labels.ExpectedLabels;
import dev.kgpu.discovery.labels.GpuFeatureLabels;
import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.node.FakeSysfs;
import dev.kgpu.discovery.publish.NodeLabelSink;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.Nvml;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * The packaged feature discovery ({@code target/quarkus-app}, run as {@code java -jar quarkus-run.jar} with
 * deploy/release/images/jvm.options) labelling a Node of the Kubernetes API test server from an 8 × A100 mock node,
 * with the PCI class files and machine-type file a DGX A100 has: the labels GFD would publish, relabelling
 * every second, a label removed by hand put back, the readiness probe. With
 * {@code quarkus.package.jar.aot.enabled} this run is what Java's AOT cache ({@code app.aot}) is trained on.
 *
 * <p>The discovery POM's failsafe configuration gives the launched process its environment ({@code NODE_NAME},
 * {@code KGPU_LABEL_SINK=node}, {@code GFD_SLEEP_INTERVAL=1s}, {@code KGPU_SYSFS_ROOT},
 * {@code GFD_MACHINE_TYPE_FILE}, {@code MOCK_NVML_PROFILE=dgx-a100}); {@link TheNode} writes that sysfs and
 * machine-type file and creates the Node before the agent starts. The test server's address reaches it as
 * the {@code kubernetes.master} system property.
 */
@QuarkusIntegrationTest
@WithKubernetesTestServer(crud = true, setup = PackagedDiscoveryIT.TheNode.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PackagedDiscoveryIT {

    static final String NODE = System.getProperty("quarkus.test.env.NODE_NAME", "gpu-node-aot");
    static final Duration WAIT = Duration.ofSeconds(30);

    @KubernetesTestServer
    KubernetesServer server;

    /** Runs before the agent starts: the Node, and the files a DGX A100 has for what NVML does not say. */
    public static final class TheNode implements Consumer<KubernetesServer> {

        @Override
        public void accept(KubernetesServer server) {
            server.getClient().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                    .addToLabels("kubernetes.io/hostname", NODE)
                    .addToLabels("nvidia.com/gpu.deploy.device-plugin", "true")
                    .endMetadata().build()).create();
            try {
                Path machineType = Path.of(System.getProperty("quarkus.test.env.GFD_MACHINE_TYPE_FILE"));
                Files.createDirectories(machineType.getParent());
                Files.writeString(machineType, "DGXA100 920-23687-2530-000\n");
                FakeSysfs sysfs = new FakeSysfs(Path.of(System.getProperty("quarkus.test.env.KGPU_SYSFS_ROOT")));
                try (Nvml nvml = Nvml.open()) {
                    for (GpuDevice gpu : nvml.devices()) {
                        sysfs.gpu(gpu.pci().sysfsBusId(), GpuFeatureLabels.PCI_CLASS_3D);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private KubernetesClient client() {
        return server.getClient();
    }

    private Map<String, String> gpuLabels() {
        Map<String, String> labels = new TreeMap<>(client().nodes().withName(NODE).get().getMetadata().getLabels());
        labels.keySet().removeIf(key -> !key.startsWith("nvidia.com/") || key.equals("nvidia.com/gpu.deploy.device-plugin"));
        return labels;
    }

    private static Map<String, String> expected() {
        Map<String, String> expected = new TreeMap<>(ExpectedLabels.read("dgx-a100-none").asMap());
        expected.remove(Labels.TIMESTAMP);
        return expected;
    }

    @Test
    @Order(1)
    void labelsTheNodeAsGfdWould() {
        await().atMost(WAIT).untilAsserted(() -> assertThat(gpuLabels()).containsAllEntriesOf(expected()));

        Map<String, String> labels = gpuLabels();
        long stamped = Long.parseLong(labels.remove(Labels.TIMESTAMP));
        assertThat(Instant.ofEpochSecond(stamped)).isBetween(Instant.now().minus(Duration.ofMinutes(5)), Instant.now());
        assertThat(labels).containsExactlyEntriesOf(expected());
        Node node = client().nodes().withName(NODE).get();
        assertThat(Arrays.asList(node.getMetadata().getAnnotations().get(NodeLabelSink.OWNED_ANNOTATION).split(",")))
                .containsAll(expected().keySet());
        assertThat(node.getMetadata().getLabels()).containsEntry("kubernetes.io/hostname", NODE)
                .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true");
        given().get("/q/health/ready").then().statusCode(200).body("checks[0].name", equalTo("gpu-labels"));
        given().get("/q/health/live").then().statusCode(200);
    }

    @Test
    @Order(2)
    void putsBackALabelRemovedByHand() {
        await().atMost(WAIT).untilAsserted(() -> assertThat(gpuLabels()).containsAllEntriesOf(expected()));

        client().nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata()
                .removeFromLabels("nvidia.com/gpu.product").endMetadata().build());

        await().atMost(WAIT).untilAsserted(() ->
                assertThat(gpuLabels()).containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"));
        assertThat(gpuLabels()).containsAllEntriesOf(expected());
    }
}
