package dev.kgpu.sim.kubelet;

/** What became of a pod handed to {@link KubeletSimulator#admit}. */
public sealed interface PodAdmission {

    String podName();

    /** Scheduled and allocated: the pod runs. */
    record Admitted(String podName, PodAllocation allocation) implements PodAdmission {
    }

    /**
     * Not enough free allocatable on the node: the scheduler leaves the pod Pending, with
     * {@code reason} {@code Insufficient <resource>} as {@code kubectl describe pod} shows it.
     */
    record Pending(String podName, String reason) implements PodAdmission {
    }

    /**
     * Scheduled, but the kubelet's device manager could not allocate: pod status {@code Failed} with
     * reason {@code UnexpectedAdmissionError} and the kubelet's message.
     */
    record Failed(String podName, String reason, String message) implements PodAdmission {
    }
}
