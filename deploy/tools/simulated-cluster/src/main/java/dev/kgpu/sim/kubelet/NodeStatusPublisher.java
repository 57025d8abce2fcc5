package dev.kgpu.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

import java.util.LinkedHashMap;
import java.util.List;
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

    /**
     * Writes the current capacity and allocatable now; returns the Node as stored.
     *
     * <p>One JSON patch that replaces the two maps and carries no {@code resourceVersion}: like the kubelet's
     * own status patch, it must not fail because another writer changed the Node since it was read. (An edit of
     * the Node read just before carries that precondition: when discovery's label patch landed between the read
     * and the write, the write failed with 409 Conflict, and a 1-GPU node stayed without allocatable.)
     * Serialised, so the last write holds the device manager's latest state.
     */
    public synchronized Node publish() {
        Map<String, Quantity> capacity = capacity();
        Map<String, Quantity> allocatable = allocatable();
        if (client.nodes().withName(nodeName).get() == null) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(nodeName).endMetadata().build()).create();
        }
        // status only: labels or conditions written by others are left alone
        String patch = client.getKubernetesSerialization().asJson(List.of(
                Map.of("op", "add", "path", "/status/capacity", "value", capacity),
                Map.of("op", "add", "path", "/status/allocatable", "value", allocatable)));
        return client.nodes().withName(nodeName).subresource("status").patch(PatchContext.of(PatchType.JSON), patch);
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
