package dev.kgpu.sim.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.List;
import java.util.Optional;

/**
 * kube-scheduler's filter for a one-node cluster: may a pending pod be bound to the node? Each filter is a
 * small class named after the scheduler plugin it plays ({@link NodeAffinity}, {@link NodeResourcesFit},
 * {@link dev.kgpu.sim.dra.DynamicResources}, which allocates DRA ResourceClaims in its
 * filter and writes them in {@link #reserve}).
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

    /**
     * The scheduler's Reserve step, after every filter let {@code pod} through to {@code node} and before it is
     * bound: claims what the filter found (a DRA plugin writes the ResourceClaims' allocation and reservation).
     * Empty when it could, else why not (the pod is not bound, and is tried again later). Nothing by default.
     */
    default Optional<String> reserve(Pod pod, Node node) {
        return Optional.empty();
    }

    /** Undoes {@link #reserve} of a pod that was then not bound (a later Reserve failed, the pod went away). */
    default void unreserve(Pod pod) {
    }

    /**
     * This filter, then {@code next} when this one lets the pod through; Reserve in the same order (a failing
     * {@code next} undoes this one's), Unreserve in the reverse.
     */
    default Scheduler and(Scheduler next) {
        Scheduler first = this;
        return new Scheduler() {
            @Override
            public Optional<String> filter(Pod pod, Node node, List<Pod> podsOnNode) {
                return first.filter(pod, node, podsOnNode).or(() -> next.filter(pod, node, podsOnNode));
            }

            @Override
            public Optional<String> reserve(Pod pod, Node node) {
                Optional<String> failed = first.reserve(pod, node);
                if (failed.isPresent()) {
                    return failed;
                }
                failed = next.reserve(pod, node);
                if (failed.isPresent()) {
                    first.unreserve(pod);
                }
                return failed;
            }

            @Override
            public void unreserve(Pod pod) {
                next.unreserve(pod);
                first.unreserve(pod);
            }
        };
    }

    /** The default scheduler's filters a GPU pod meets: node selector and required node affinity, then resources. */
    static Scheduler standard() {
        return new NodeAffinity().and(new NodeResourcesFit());
    }
}
