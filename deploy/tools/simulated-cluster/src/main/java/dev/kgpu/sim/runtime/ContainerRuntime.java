package dev.kgpu.sim.runtime;

import io.fabric8.kubernetes.api.model.Pod;

import java.util.Map;
import java.util.Optional;

/**
 * The node's container runtime as the kubelet drives it: it creates a pod's sandbox, then starts each
 * container with what the device managers gave it and tells what becomes of it. Nothing runs: a runtime
 * decides what a container would do and what it would print. {@link NvidiaContainerRuntime} is the NVIDIA
 * container toolkit's view of the node's GPUs; a test may script outcomes instead.
 *
 * <p>Called on the {@link SchedulerAndKubelet}'s thread only.
 */
public interface ContainerRuntime {

    /**
     * Creates {@code pod}'s sandbox: empty when it could, else the runtime's error. The kubelet then records a
     * {@code FailedCreatePodSandBox} event and leaves every container waiting in {@code ContainerCreating}.
     */
    default Optional<String> createSandbox(Pod pod) {
        return Optional.empty();
    }

    /** Starts one container and tells what becomes of it. */
    ContainerOutcome start(ContainerStart container);

    /** Every container of pod {@code namespace/pod} stops: the pod ended or was deleted. */
    default void stopPod(String namespace, String pod) {
    }

    /**
     * One container to start.
     *
     * @param env     the container's own variables from the pod spec (values given literally)
     * @param devices what the device managers gave it
     */
    record ContainerStart(String namespace, String pod, String name, String image, Map<String, String> env,
                          DeviceInjection devices) {
        public ContainerStart {
            env = Map.copyOf(env);
        }
    }

    /** What became of a container. */
    sealed interface ContainerOutcome {

        /** It ran to its end (or could not start at all: exit 128, {@code StartError}). */
        record Exited(int exitCode, String reason, String message, String log) implements ContainerOutcome {
        }

        /** It keeps running. */
        record Running(String log) implements ContainerOutcome {
        }

        /** It never started, e.g. {@code ImagePullBackOff}; it has no log. */
        record Waiting(String reason, String message) implements ContainerOutcome {
        }
    }
}
