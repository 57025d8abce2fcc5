package dev.kgpu.images;

import dev.kgpu.exporter.testing.Await;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GPU feature discovery's image on an 8 x A100 mock node: it labels its Node through the Kubernetes API (the
 * fabric8 API server in CRUD mode, on the host's loopback) as its non-root user, without capabilities, on a
 * read-only root.
 */
@Images.WhenBuilt("discovery")
class DiscoveryImageIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private static KubernetesMockServer api;
    private static KubernetesClient client;
    private static ImageContainer discovery;
    private static int port;

    @BeforeAll
    static void start() {
        // fabric8's API server in CRUD mode, plain HTTP on the loopback (as the simulated node's)
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        api = new KubernetesMockServer(new Context(), new MockWebServer(), expectations,
                new KubernetesMixedDispatcher(expectations), false);
        api.init(InetAddress.getLoopbackAddress(), 0);
        client = api.createClient();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("image-node").endMetadata().build()).create();
        port = Images.freePort();
        discovery = ImageContainer.of("discovery")
                .mockNvml("dgx-a100")
                .env("QUARKUS_HTTP_PORT", Integer.toString(port))
                .env("NODE_NAME", "image-node")
                .env("KGPU_LABEL_SINK", "node")
                .env("KUBERNETES_MASTER", "http://127.0.0.1:" + api.getPort())
                .env("KUBERNETES_AUTH_TRYKUBECONFIG", "false")
                .env("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false")
                .start();
    }

    @AfterAll
    static void stop() {
        if (discovery != null) {
            discovery.close();
        }
        if (client != null) {
            client.close();
        }
        if (api != null) {
            api.destroy();
        }
    }

    @Test
    void labelsItsNodeAndAnswersItsProbes() {
        Map<String, String> labels = Await.until("nvidia.com/gpu.count on the Node", WAIT, () -> {
            Node node = client.nodes().withName("image-node").get();
            Map<String, String> current = node.getMetadata().getLabels();
            return current != null && "8".equals(current.get("nvidia.com/gpu.count")) ? current : null;
        });
        assertThat(labels).containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB");
        Await.until("/q/health/ready to answer UP", WAIT, () -> Http.up(port, "/q/health/ready"));
        assertThat(Http.up(port, "/q/health/live")).isTrue();
    }

    @Test
    void runsAsNonrootWithoutCapabilities() {
        Await.until("discovery to answer", WAIT, () -> Http.get(port, "/q/health/live") != null);
        var status = discovery.processStatus();
        assertThat(status.get("Uid")).startsWith("65532\t");
        assertThat(status.get("CapEff")).isEqualTo("0000000000000000");
        assertThat(discovery.maps(Images.mappedFile("discovery"))).as("the agent runs from %s", Images.mappedFile("discovery")).isTrue();
    }
}
