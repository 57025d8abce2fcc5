package dev.kgpu.discovery.publish;

import dev.kgpu.discovery.labels.Labels;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@QuarkusTest
@WithKubernetesTestServer(crud = true)
class NodeLabelSinkIT {

    static final String NODE = "gpu-node-1";

    @KubernetesTestServer
    KubernetesServer server;

    @Inject
    KubernetesClient client;

    @BeforeEach
    void freshNode() {
        client.nodes().withName(NODE).delete();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                .addToLabels("kubernetes.io/hostname", NODE)
                .addToLabels("nvidia.com/device-plugin.config", "a100-time-sliced")
                .addToLabels("nvidia.com/gpu.present", "true") // gpu-operator's, from NFD's PCI labels
                .endMetadata().build()).create();
    }

    static Labels labels(String timestamp, String product) {
        return Labels.of(Map.of(
                Labels.TIMESTAMP, timestamp,
                "nvidia.com/gpu.product", product,
                "nvidia.com/gpu.count", "8",
                "nvidia.com/gpu.family", "ampere"));
    }

    Map<String, String> nodeLabels() {
        return client.nodes().withName(NODE).get().getMetadata().getLabels();
    }

    @Test
    void labelsAppearAndForeignLabelsSurvive() throws Exception {
        LabelSink sink = new NodeLabelSink(client, NODE);

        assertThat(sink.publish(labels("1700000000", "NVIDIA-A100-SXM4-80GB"))).isEqualTo(LabelSink.Outcome.WROTE);

        assertThat(nodeLabels())
                .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB")
                .containsEntry("nvidia.com/gpu.count", "8")
                .containsEntry(Labels.TIMESTAMP, "1700000000")
                .containsEntry("kubernetes.io/hostname", NODE)
                .containsEntry("nvidia.com/device-plugin.config", "a100-time-sliced")
                .containsEntry("nvidia.com/gpu.present", "true");
        assertThat(client.nodes().withName(NODE).get().getMetadata().getAnnotations())
                .containsEntry(NodeLabelSink.OWNED_ANNOTATION,
                        "nvidia.com/gfd.timestamp,nvidia.com/gpu.count,nvidia.com/gpu.family,nvidia.com/gpu.product");
    }

    @Test
    void staleLabelsAreRemovedEvenByANewAgent() throws Exception {
        new NodeLabelSink(client, NODE).publish(Labels.of(Map.of(
                "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "nvidia.com/mig.strategy", "single")));

        // a restarted agent knows nothing in memory: the annotation tells it what it owns
        LabelSink restarted = new NodeLabelSink(client, NODE);
        assertThat(restarted.publish(Labels.of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"))).isEqualTo(LabelSink.Outcome.WROTE);

        assertThat(nodeLabels())
                .doesNotContainKey("nvidia.com/mig.strategy")
                .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB")
                .containsEntry("nvidia.com/device-plugin.config", "a100-time-sliced");
    }

    @Test
    void aForeignLabelChangedMeanwhileIsKept() throws Exception {
        LabelSink sink = new NodeLabelSink(client, NODE);
        sink.publish(labels("1700000000", "A"));
        client.nodes().withName(NODE).edit(node -> new NodeBuilder(node).editMetadata()
                .addToLabels("team", "ml").addToLabels("nvidia.com/device-plugin.config", "other").endMetadata().build());

        sink.publish(labels("1700000000", "B"));

        assertThat(nodeLabels()).containsEntry("team", "ml").containsEntry("nvidia.com/device-plugin.config", "other")
                .containsEntry("nvidia.com/gpu.product", "B");
    }

    @Test
    void anUnchangedPassReadsButNeverWrites() throws Exception {
        LabelSink sink = new NodeLabelSink(client, NODE);
        sink.publish(labels("1700000000", "NVIDIA-A100-SXM4-80GB"));
        int before = server.getKubernetesMockServer().getRequestCount();

        // only the timestamp moved on: nothing to write
        assertThat(sink.publish(labels("1700000060", "NVIDIA-A100-SXM4-80GB"))).isEqualTo(LabelSink.Outcome.UNCHANGED);

        assertThat(server.getKubernetesMockServer().getRequestCount() - before).isEqualTo(1);
        assertThat(server.getLastRequest().getMethod()).isEqualTo("GET");
        assertThat(nodeLabels()).containsEntry(Labels.TIMESTAMP, "1700000000");
    }

    @Test
    void recoversAfterTheServerRefusesWrites() throws Exception {
        LabelSink sink = new NodeLabelSink(client, NODE);
        server.expect().patch().withPath("/api/v1/nodes/" + NODE).andReturn(503, "etcd unavailable").once();

        assertThatThrownBy(() -> sink.publish(labels("1700000000", "X")))
                .isInstanceOfSatisfying(PublishException.ApiRefused.class, e -> assertThat(e.code()).isEqualTo(503));
        assertThat(nodeLabels()).doesNotContainKey("nvidia.com/gpu.product");

        assertThat(sink.publish(labels("1700000000", "X"))).isEqualTo(LabelSink.Outcome.WROTE);
        assertThat(nodeLabels()).containsEntry("nvidia.com/gpu.product", "X");
    }

    @Test
    void aMissingNodeIsA404() {
        LabelSink sink = new NodeLabelSink(client, "no-such-node");

        assertThatThrownBy(() -> sink.publish(labels("1", "X")))
                .isInstanceOfSatisfying(PublishException.ApiRefused.class, e -> assertThat(e.code()).isEqualTo(404))
                .hasMessageContaining("NODE_NAME");
    }

    @Test
    void aTamperedAnnotationCannotRemoveForeignLabels() throws Exception {
        client.nodes().withName(NODE).edit(node -> new NodeBuilder(node).editMetadata()
                .addToAnnotations(NodeLabelSink.OWNED_ANNOTATION, "kubernetes.io/hostname,nvidia.com/old").endMetadata().build());

        new NodeLabelSink(client, NODE).publish(labels("1", "X"));

        Node node = client.nodes().withName(NODE).get();
        assertThat(node.getMetadata().getLabels()).containsEntry("kubernetes.io/hostname", NODE);
    }
}
