package dev.kgpu.discovery.publish;

import dev.kgpu.agent.testing.PackagedAgent;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The packaged discovery (the jar, or the native executable under the native profile) publishing its labels
 * through NFD's NodeFeature API, the sink PackagedDiscoveryIT's Node labels do not cover: a one-shot run against
 * a Kubernetes API test server that serves the NodeFeature CRD, found through {@code KUBECONFIG}, on an 8 × A100
 * mock node. Exit 0, and one NodeFeature object holding the labels, owned by the DaemonSet that owns discovery's own
 * pod ({@code POD_NAME}): the owner is read as a typed Pod, the one kind whose own operations the native executable
 * keeps of fabric8's defaults ({@code dev.kgpu.agent.kubernetes.NativeKubernetesClient}).
 */
class PackagedNodeFeatureSinkIT {

    private static final String NODE = "gpu-node-nf";
    private static final String NAMESPACE = "gpu-operator";
    private static final String POD = "gpu-feature-discovery-x7k2p";
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void aOneShotRunPublishesTheLabelsAsANodeFeatureObject() throws IOException {
        KubernetesServer server = new KubernetesServer(false, true, InetAddress.getLoopbackAddress(), 0, List.of());
        server.before();
        try {
            KubernetesClient client = server.getClient();
            NodeFeatureCrd.install(client);
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            client.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(POD).withNamespace(NAMESPACE)
                    .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("gpu-feature-discovery")
                    .withUid("5d1c7f0e-8d1a-4f57-9d0b-3e1f7c2a9b44").withController(true).endOwnerReference().endMetadata()
                    .withNewSpec().addNewContainer().withName("gfd").withImage("kgpu/discovery").endContainer().endSpec()
                    .build()).create();
            Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: test
                      cluster: {server: "%s"}
                    users:
                    - name: gfd
                      user: {token: "t"}
                    contexts:
                    - name: test
                      context: {cluster: test, user: gfd, namespace: %s}
                    current-context: test
                    """.formatted(client.getMasterUrl(), NAMESPACE));

            try (PackagedAgent discovery = PackagedAgent.start(dir, Map.of("KUBECONFIG", kubeconfig.toString(),
                    "NODE_NAME", NODE, "NAMESPACE", NAMESPACE, "POD_NAME", POD, "KGPU_LABEL_SINK", "nodefeature", "GFD_ONESHOT", "true",
                    "GFD_MACHINE_TYPE_FILE", "", "MOCK_NVML_PROFILE", "dgx-a100", "QUARKUS_HTTP_PORT", "0"))) {
                PackagedAgent.Exit exit = discovery.awaitExit(WAIT);

                assertThat(exit.status()).as(exit.output()).isZero();
            }
            GenericKubernetesResource object = client.genericKubernetesResources(NodeFeatureSink.API_VERSION, NodeFeatureSink.KIND)
                    .inNamespace(NAMESPACE).withName("nvidia-features-for-" + NODE).get();
            assertThat(object).as("the NodeFeature object").isNotNull();
            assertThat(object.getMetadata().getLabels()).containsEntry(NodeFeatureSink.NODE_NAME_LABEL, NODE);
            assertThat(NodeFeatureSink.specLabels(object)).containsEntry("nvidia.com/gpu.count", "8")
                    .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB").containsKey("nvidia.com/gfd.timestamp");
            assertThat(object.getMetadata().getOwnerReferences()).as("the NodeFeature's owner, read from discovery's pod")
                    .extracting(OwnerReference::getKind, OwnerReference::getName, OwnerReference::getUid)
                    .containsExactly(tuple("DaemonSet", "gpu-feature-discovery",
                            "5d1c7f0e-8d1a-4f57-9d0b-3e1f7c2a9b44"));
        } finally {
            server.after();
        }
    }
}
