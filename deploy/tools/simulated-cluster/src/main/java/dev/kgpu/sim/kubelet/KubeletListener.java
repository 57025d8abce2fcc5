package dev.kgpu.sim.kubelet;

/**
 * Observes a {@link KubeletSimulator}. Calls arrive one at a time, in order, on the simulator's own
 * event thread, never on a gRPC thread, so a listener may block briefly (e.g. to write a Node status).
 */
public interface KubeletListener {

    /** A Register call was answered (accepted or rejected). */
    default void onRegistration(RegistrationEvent event) {
    }

    /** A resource's device list or connection changed (a ListAndWatch message, a stream end, a restart). */
    default void onDevicesChanged(ResourceState resource) {
    }

    /** A pod was admitted, left Pending, or failed admission. */
    default void onAdmission(PodAdmission admission) {
    }

    /** An admitted pod was deleted and its devices freed. */
    default void onReleased(PodAllocation allocation) {
    }

    /** The simulated kubelet restarted: sockets deleted, kubelet.sock recreated. */
    default void onRestarted() {
    }
}
