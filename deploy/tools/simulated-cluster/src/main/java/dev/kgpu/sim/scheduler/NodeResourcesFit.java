package dev.kgpu.sim.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * kube-scheduler's NodeResourcesFit filter for extended resources: the node's allocatable (as its kubelet
 * published it in the Node's status) less what the pods bound to it ask for must cover what the pod asks for.
 * The first resource short is named: {@code Insufficient nvidia.com/gpu}.
 */
public final class NodeResourcesFit implements Scheduler {

    @Override
    public Optional<String> filter(Pod pod, Node node, List<Pod> podsOnNode) {
        Map<String, Quantity> allocatable = node.getStatus() == null || node.getStatus().getAllocatable() == null
                ? Map.of() : node.getStatus().getAllocatable();
        for (Map.Entry<String, Long> wanted : ExtendedResources.total(pod).entrySet()) {
            String resource = wanted.getKey();
            Quantity quantity = allocatable.get(resource);
            long free = quantity == null ? 0 : quantity.getNumericalAmount().longValue();
            for (Pod other : podsOnNode) {
                free -= ExtendedResources.total(other).getOrDefault(resource, 0L);
            }
            if (free < wanted.getValue()) {
                return Optional.of("Insufficient " + resource);
            }
        }
        return Optional.empty();
    }
}
