package dev.kgpu.validator.kubernetes.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.List;
import java.util.Optional;

/**
 * kube-scheduler's filter for a one-node cluster: may a pending pod be bound to the node? Each filter is a
 * small class named after the scheduler plugin it plays ({@link NodeAffinity}, {@link NodeResourcesFit}); a
 * scheduler that allocates DRA ResourceClaims is one more.
 *
 * <p>Called on the {@link SchedulerAndKubelet}'s thread only.
 */
@FunctionalInterface
public interface Scheduler {

    /**
     * Why {@code node} cannot take {@code pod}, in the words the scheduler reports after
     * {@code 0/1 nodes are available: 1 } (e.g. {@code Insufficient nvidia.com/gpu}), or empty when it can.
     *
     * @param podsOnNode the pods bound to the node that have not ended, and those whose devices its kubelet still
     *                   holds (deleted, not yet let go), {@code pod} not among them
     */
    Optional<String> filter(Pod pod, Node node, List<Pod> podsOnNode);

    /** This filter, then {@code next} when this one lets the pod through. */
    default Scheduler and(Scheduler next) {
        return (pod, node, podsOnNode) -> filter(pod, node, podsOnNode).or(() -> next.filter(pod, node, podsOnNode));
    }

    /** The default scheduler's filters a GPU pod meets: node selector and required node affinity, then resources. */
    static Scheduler standard() {
        return new NodeAffinity().and(new NodeResourcesFit());
    }
}
