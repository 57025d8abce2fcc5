package dev.kgpu.plugin.testing.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a simulated kubelet's extended resources into its Node object's {@code status.capacity} and
 * {@code status.allocatable}, as the kubelet's node-status loop does, so {@code kubectl describe node}
 * shows {@code nvidia.com/gpu} under Capacity and Allocatable. Creates the Node when it does not exist.
 *
 * <p>Register it with {@link KubeletSimulator#addListener}; it publishes on every device-list change and
 * restart, on the simulator's event thread. {@code baseCapacity} holds the node's non-extended resources
 * (cpu, memory, pods), published unchanged in both maps.
 */
public final class NodeStatusPublisher implements KubeletListener {

    private final KubeletSimulator kubelet;
    private final KubernetesClient client;
    private final String nodeName;
    private final Map<String, Quantity> baseCapacity;

    public NodeStatusPublisher(KubeletSimulator kubelet, KubernetesClient client, String nodeName,
                               Map<String, Quantity> baseCapacity) {
        this.kubelet = kubelet;
        this.client = client;
        this.nodeName = nodeName;
        this.baseCapacity = Map.copyOf(baseCapacity);
    }

    /** A publisher for a node with 2 CPUs, 8 GiB of memory and 110 pods besides its extended resources. */
    public static NodeStatusPublisher withDefaults(KubeletSimulator kubelet, KubernetesClient client, String nodeName) {
        return new NodeStatusPublisher(kubelet, client, nodeName,
                Map.of("cpu", new Quantity("2"), "memory", new Quantity("8Gi"), "pods", new Quantity("110")));
    }

    @Override
    public void onDevicesChanged(ResourceState resource) {
        publish();
    }

    @Override
    public void onRestarted() {
        publish();
    }

    /** Writes the current capacity and allocatable now; returns the Node as stored. */
    public Node publish() {
        Map<String, Quantity> capacity = capacity();
        Map<String, Quantity> allocatable = allocatable();
        if (client.nodes().withName(nodeName).get() == null) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(nodeName).endMetadata().build()).create();
        }
        // a patch of status only: labels or conditions written by others are left alone
        return client.nodes().withName(nodeName).editStatus(node -> new NodeBuilder(node)
                .editOrNewStatus().withCapacity(capacity).withAllocatable(allocatable).endStatus()
                .build());
    }

    /**
     * The kubelet's periodic node-status sync: writes capacity and allocatable when the Node's stored ones
     * differ from the device manager's (a write that failed, a Node recreated), else nothing.
     *
     * @return whether it wrote
     */
    public boolean publishIfStale() {
        Node node = client.nodes().withName(nodeName).get();
        if (node != null && node.getStatus() != null && capacity().equals(node.getStatus().getCapacity())
                && allocatable().equals(node.getStatus().getAllocatable())) {
            return false;
        }
        publish();
        return true;
    }

    private Map<String, Quantity> capacity() {
        Map<String, Quantity> capacity = new LinkedHashMap<>(baseCapacity);
        kubelet.capacity().forEach((r, n) -> capacity.put(r, new Quantity(Long.toString(n))));
        return capacity;
    }

    private Map<String, Quantity> allocatable() {
        Map<String, Quantity> allocatable = new LinkedHashMap<>(baseCapacity);
        kubelet.allocatable().forEach((r, n) -> allocatable.put(r, new Quantity(Long.toString(n))));
        return allocatable;
    }
}
