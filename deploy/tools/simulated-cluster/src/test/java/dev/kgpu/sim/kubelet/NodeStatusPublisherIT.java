package dev.kgpu.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The simulated kubelet publishes a node's extended resources into its Node object, as the kubelet does:
 * {@code kubectl describe node} then shows {@code nvidia.com/gpu} under Capacity and Allocatable.
 */
class NodeStatusPublisherIT {

    /** Quarkus's Kubernetes test server (fabric8's, in CRUD mode, with expectations), one for the class. */
    static KubernetesServer server;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServer() {
        server = new KubernetesServer(false, true, InetAddress.getLoopbackAddress(), 0, List.of());
        server.before();
    }

    @AfterAll
    static void stopServer() {
        server.after();
    }

    @Test
    void capacityAndAllocatableFollowTheDeviceList() throws Exception {
        KubernetesClient client = server.getClient();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("sim-node")
                .addToLabels("nvidia.com/gpu.present", "true").endMetadata().build()).create();
        BlockingQueue<ResourceState> published = new LinkedBlockingQueue<>();
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir);
             ScriptedDevicePlugin plugin = new ScriptedDevicePlugin(dir.resolve("nvidia-gpu.sock"), List.of("GPU-a", "GPU-b")).serve()) {
            NodeStatusPublisher publisher = NodeStatusPublisher.withDefaults(kubelet, client, "sim-node");
            kubelet.addListener(publisher);
            kubelet.addListener(new KubeletListener() {
                @Override
                public void onDevicesChanged(ResourceState resource) {
                    published.add(resource);
                }
            });

            plugin.register(kubelet.socket(), "v1beta1", "nvidia.com/gpu");
            assertThat(published.poll(20, TimeUnit.SECONDS)).isNotNull();
            awaitNode(client, n -> "2".equals(amount(n, true)) && "2".equals(amount(n, false)));

            plugin.setDevices(List.of(ScriptedDevicePlugin.device("GPU-a", false), ScriptedDevicePlugin.device("GPU-b", true)));
            Node node = awaitNode(client, n -> "1".equals(amount(n, false)));

            assertThat(amount(node, true)).isEqualTo("2");
            assertThat(node.getStatus().getCapacity()).containsEntry("cpu", new Quantity("2")).containsKey("memory");
            assertThat(node.getMetadata().getLabels()).as("other fields are left alone")
                    .containsEntry("nvidia.com/gpu.present", "true");
        }
    }

    @Test
    void aNodeChangedSinceItWasLastReadStillGetsItsStatus() throws Exception {
        KubernetesClient client = server.getClient();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("busy-node").endMetadata().build()).create();
        Node beforeTheLabels = client.nodes().withName("busy-node").get();
        // another agent (discovery) labels the Node; every later read of it by name is a read from before that
        client.nodes().withName("busy-node").edit(n -> new NodeBuilder(n).editMetadata()
                .addToLabels("nvidia.com/gpu.present", "true").endMetadata().build());
        server.expect().get().withPath("/api/v1/nodes/busy-node").andReturn(200, beforeTheLabels).always();
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir);
             ScriptedDevicePlugin plugin = new ScriptedDevicePlugin(dir.resolve("nvidia-gpu.sock"), List.of("GPU-a")).serve()) {
            NodeStatusPublisher publisher = NodeStatusPublisher.withDefaults(kubelet, client, "busy-node");
            plugin.register(kubelet.socket(), "v1beta1", "nvidia.com/gpu");
            await("the device list of nvidia.com/gpu").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5))
                    .until(() -> Long.valueOf(1).equals(kubelet.allocatable().get("nvidia.com/gpu")));

            publisher.publish();

            // a list is not answered by the stale read: it shows the Node as stored
            Node stored = client.nodes().list().getItems().stream()
                    .filter(n -> n.getMetadata().getName().equals("busy-node")).findFirst().orElseThrow();
            assertThat(amount(stored, false)).isEqualTo("1");
            assertThat(stored.getMetadata().getLabels()).containsEntry("nvidia.com/gpu.present", "true");
        }
    }

    static String amount(Node node, boolean capacity) {
        if (node.getStatus() == null) {
            return null;
        }
        Map<String, Quantity> map = capacity ? node.getStatus().getCapacity() : node.getStatus().getAllocatable();
        Quantity quantity = map == null ? null : map.get("nvidia.com/gpu");
        return quantity == null ? null : quantity.getAmount();
    }

    static Node awaitNode(KubernetesClient client, java.util.function.Predicate<Node> condition) {
        return awaitNode(client, "sim-node", condition);
    }

    static Node awaitNode(KubernetesClient client, String name, java.util.function.Predicate<Node> condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Node node = null;
        while (System.nanoTime() < deadline) {
            node = client.nodes().withName(name).get();
            if (node != null && condition.test(node)) {
                return node;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
        }
        throw new AssertionError("node status never matched; last: " + (node == null ? null : node.getStatus()));
    }
}
