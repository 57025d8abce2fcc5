package dev.kgpu.validator.core;

import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * This node's labels, read from the API server when a component needs them ({@code cc-manager}, {@code vfio-pci},
 * {@code vgpu-devices}); a node that cannot be read fails the component, as NVIDIA's {@code getNode} does.
 */
public final class NodeLabels {

    private final Supplier<Cluster> cluster;
    private final String nodeName;

    public NodeLabels(Supplier<Cluster> cluster, String nodeName) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    }

    /** The labels now. */
    public Map<String, String> read() {
        try {
            return cluster.get().node(nodeName).orElseThrow(() -> new ComponentFailure(Layer.API, "node " + nodeName
                    + " does not exist (NODE_NAME must be this node's name, from the pod's spec.nodeName)")).labels();
        } catch (ClusterException e) {
            throw SamplePodRunner.apiFailure("read node " + nodeName, e);
        }
    }
}
