package dev.kgpu.discovery.publish;

import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.settings.LabelSinkKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@QuarkusTest
@WithKubernetesTestServer(crud = true)
class NodeFeatureSinkIT {

    static final String NODE = "gpu-node-2";
    static final String NAMESPACE = "gpu-operator";

    @KubernetesTestServer
    KubernetesServer server;

    @Inject
    KubernetesClient client;

    @BeforeEach
    void servedCrdAndNoObject() {
        NodeFeatureCrd.install(client);
        object().delete();
    }

    @AfterEach
    void withdrawCrd() {
        NodeFeatureCrd.remove(client);
    }

    io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> object() {
        return client.genericKubernetesResources(NodeFeatureSink.API_VERSION, NodeFeatureSink.KIND)
                .inNamespace(NAMESPACE).withName("nvidia-features-for-" + NODE);
    }

    LabelSink sink() {
        return new NodeFeatureSink(client, NODE, NAMESPACE, Optional.empty());
    }

    static Labels labels(String timestamp, String product) {
        return Labels.of(Map.of(Labels.TIMESTAMP, timestamp, "nvidia.com/gpu.product", product, "nvidia.com/mig.strategy", "single"));
    }

    @Test
    void createsTheNodeFeatureGfdWould() throws Exception {
        assertThat(sink().publish(labels("1700000000", "NVIDIA-H100-80GB-HBM3"))).isEqualTo(LabelSink.Outcome.WROTE);

        GenericKubernetesResource created = object().get();
        assertThat(created.getMetadata().getLabels()).containsEntry("nfd.node.kubernetes.io/node-name", NODE);
        assertThat(NodeFeatureSink.specLabels(created)).containsExactlyInAnyOrderEntriesOf(Map.of(
                Labels.TIMESTAMP, "1700000000", "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/mig.strategy", "single"));
    }

    @Test
    void staleLabelsAreRemovedAndAnUnchangedPassWritesNothing() throws Exception {
        sink().publish(labels("1700000000", "A"));
        LabelSink restarted = sink();

        assertThat(restarted.publish(Labels.of("nvidia.com/gpu.product", "A"))).isEqualTo(LabelSink.Outcome.WROTE);
        assertThat(NodeFeatureSink.specLabels(object().get())).containsExactlyEntriesOf(Map.of("nvidia.com/gpu.product", "A"));

        int before = server.getKubernetesMockServer().getRequestCount();
        assertThat(restarted.publish(Labels.of("nvidia.com/gpu.product", "A"))).isEqualTo(LabelSink.Outcome.UNCHANGED);
        assertThat(server.getKubernetesMockServer().getRequestCount() - before).isEqualTo(1);
        assertThat(server.getLastRequest().getMethod()).isEqualTo("GET");
    }

    @Test
    void aTimestampThatOnlyMovedOnIsNotWritten() throws Exception {
        sink().publish(labels("1700000000", "A"));

        assertThat(sink().publish(labels("1700000600", "A"))).isEqualTo(LabelSink.Outcome.UNCHANGED);
        assertThat(NodeFeatureSink.specLabels(object().get())).containsEntry(Labels.TIMESTAMP, "1700000000");
    }

    @Test
    void recoversAfterTheServerRefusesWrites() throws Exception {
        sink().publish(labels("1", "A"));
        server.expect().patch().withPath("/apis/nfd.k8s-sigs.io/v1alpha1/namespaces/" + NAMESPACE + "/nodefeatures/nvidia-features-for-" + NODE)
                .andReturn(409, "conflict").once();

        assertThatThrownBy(() -> sink().publish(labels("1", "B")))
                .isInstanceOfSatisfying(PublishException.ApiRefused.class, e -> assertThat(e.code()).isEqualTo(409));
        assertThat(NodeFeatureSink.specLabels(object().get())).containsEntry("nvidia.com/gpu.product", "A");

        assertThat(sink().publish(labels("1", "B"))).isEqualTo(LabelSink.Outcome.WROTE);
        assertThat(NodeFeatureSink.specLabels(object().get())).containsEntry("nvidia.com/gpu.product", "B");
    }

    @Test
    void theSinkFollowsTheCrd() throws Exception {
        SinkFactory factory = new SinkFactory(client);
        SinkFactory.Request auto = new SinkFactory.Request(LabelSinkKind.AUTO, Optional.of(NODE),
                Optional.of(NAMESPACE), Optional.empty(), Path.of("/tmp/gfd"), true);

        assertThat(factory.create(auto)).isInstanceOf(NodeFeatureSink.class);

        NodeFeatureCrd.remove(client);
        assertThat(factory.create(auto)).isInstanceOf(NodeLabelSink.class);

        SinkFactory.Request file = new SinkFactory.Request(LabelSinkKind.FILE, Optional.of(NODE),
                Optional.of(NAMESPACE), Optional.empty(), Path.of("/tmp/gfd"), true);
        assertThat(factory.create(file)).isInstanceOf(FeatureFileSink.class);

        SinkFactory.Request explicit = new SinkFactory.Request(LabelSinkKind.NODE_FEATURE,
                Optional.of(NODE), Optional.of(NAMESPACE), Optional.empty(), Path.of("/tmp/gfd"), true);
        assertThat(factory.create(explicit)).isInstanceOf(NodeFeatureSink.class);
    }

    @Test
    void theNodeFeatureIsOwnedByTheDaemonSetOfThisPod() throws Exception {
        client.pods().inNamespace(NAMESPACE).withName("kgpu-discovery-x1").delete();
        client.pods().inNamespace(NAMESPACE).resource(new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata().withName("kgpu-discovery-x1").withNamespace(NAMESPACE)
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("kgpu-discovery")
                .withUid("7d0c1b52-0000-4000-8000-000000000001").withController(true).endOwnerReference()
                .endMetadata().build()).create();
        SinkFactory.Request request = new SinkFactory.Request(LabelSinkKind.NODE_FEATURE,
                Optional.of(NODE), Optional.of(NAMESPACE), Optional.of("kgpu-discovery-x1"), Path.of("/tmp/gfd"), true);

        new SinkFactory(client).create(request).publish(labels("1", "A"));

        assertThat(object().get().getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getKind()).isEqualTo("DaemonSet");
            assertThat(owner.getName()).isEqualTo("kgpu-discovery");
            assertThat(owner.getUid()).isEqualTo("7d0c1b52-0000-4000-8000-000000000001");
            assertThat(owner.getController()).isTrue();
        });
    }

    @Test
    void aMissingNamespaceIsNamed() {
        SinkFactory.Request request = new SinkFactory.Request(LabelSinkKind.NODE_FEATURE,
                Optional.of(NODE), Optional.empty(), Optional.empty(), Path.of("/tmp/gfd"), true);

        assertThatThrownBy(() -> new SinkFactory(client).create(request))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("NAMESPACE was '' but the nodefeature sink needs it");
    }
}
