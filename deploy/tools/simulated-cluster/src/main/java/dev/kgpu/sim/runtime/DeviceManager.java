package dev.kgpu.sim.runtime;

import io.fabric8.kubernetes.api.model.Pod;

import java.util.Map;

/**
 * The kubelet's admission of a pod bound to its node: the devices each container gets, or the kubelet's
 * rejection. The simulated node's is the kubelet simulator's device manager, which allocates through the real
 * device plugin; {@link #none()} admits every pod without devices. A DRA kubelet plugin's NodePrepareResources
 * would answer here too, with CDI device names.
 *
 * <p>Called on the {@link SchedulerAndKubelet}'s thread only.
 */
public interface DeviceManager {

    /** Admits {@code pod}, which the scheduler bound to the node (or which was bound to it by hand). */
    Admission admit(Pod pod);

    /** Frees the devices of a pod that ended or was deleted; nothing when it holds none. */
    void release(Pod pod);

    /** What became of an admission. */
    sealed interface Admission {

        /** Admitted: each container's devices, by container name (a container missing here gets none). */
        record Admitted(Map<String, DeviceInjection> containers) implements Admission {
            public Admitted {
                containers = Map.copyOf(containers);
            }
        }

        /**
         * Rejected: the pod ends {@code Failed} with the kubelet's reason and message, e.g.
         * {@code UnexpectedAdmissionError} or {@code OutOfnvidia.com/gpu}.
         */
        record Rejected(String reason, String message) implements Admission {
        }

        /**
         * Not yet: the pod stays {@code Pending}, its containers in {@code ContainerCreating}, with a Warning event
         * ({@code reason}, e.g. {@code FailedPrepareDynamicResources}, and {@code message}); it is admitted again
         * when it, a ResourceClaim or a ResourceSlice changes.
         */
        record Waiting(String reason, String message) implements Admission {
        }
    }

    /**
     * This manager's admission, then {@code next}'s (the kubelet's device manager, then its DRA manager): admitted
     * when both admit, each container with both injections merged; when {@code next} does not admit, what this one
     * gave is released.
     */
    default DeviceManager and(DeviceManager next) {
        DeviceManager first = this;
        return new DeviceManager() {
            @Override
            public Admission admit(Pod pod) {
                Admission admission = first.admit(pod);
                if (!(admission instanceof Admission.Admitted firstAdmitted)) {
                    return admission;
                }
                Admission second = next.admit(pod);
                if (!(second instanceof Admission.Admitted secondAdmitted)) {
                    first.release(pod);
                    return second;
                }
                Map<String, DeviceInjection> merged = new java.util.LinkedHashMap<>(firstAdmitted.containers());
                secondAdmitted.containers().forEach((container, injection) -> merged.merge(container, injection, DeviceInjection::plus));
                return new Admission.Admitted(merged);
            }

            @Override
            public void release(Pod pod) {
                next.release(pod);
                first.release(pod);
            }
        };
    }

    /** A kubelet without device plugins: every pod is admitted, and no container gets a device. */
    static DeviceManager none() {
        return new DeviceManager() {
            @Override
            public Admission admit(Pod pod) {
                return new Admission.Admitted(Map.of());
            }

            @Override
            public void release(Pod pod) {
            }
        };
    }
}
