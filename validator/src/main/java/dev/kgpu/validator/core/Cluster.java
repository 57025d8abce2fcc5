package dev.kgpu.validator.core;

import java.util.List;
import java.util.Optional;

/**
 * The Kubernetes API as the validator needs it. Every method throws {@link ClusterException} when the API
 * server refuses or fails a request; "not found" is an empty result, not an exception.
 */
public interface Cluster {

    /** The node's GPU-relevant capacity and allocatable, or empty when no such node exists. */
    Optional<NodeResources> node(String name);

    /**
     * The names of the devices that DRA driver {@code driver} publishes for node {@code nodeName} in its
     * ResourceSlices ({@code resource.k8s.io/v1}, {@code spec.nodeName}), in slice order; empty when there are none.
     */
    List<String> sliceDevices(String nodeName, String driver);

    /**
     * Creates the pod and returns the name the API server gave it. A pod asking for a
     * {@link GpuRequest.DeviceClaim} gets its claim from a ResourceClaimTemplate in its namespace, made first when
     * missing.
     */
    String createPod(PodRequest request);

    /** The pod's phase and conditions now, or empty when it does not exist. */
    Optional<PodState> pod(String namespace, String name);

    /** The whole log of {@code container} in the pod. */
    String log(String namespace, String pod, String container);

    /** Deletes the pod at once (grace period 0); a pod that is already gone is fine. */
    void deletePod(String namespace, String name);

    /**
     * The pod's Warning events, oldest first, each {@code <reason>: <message>} (e.g.
     * {@code FailedCreatePodSandBox: ... no runtime for "nvidia" is configured}).
     */
    List<String> warningEvents(String namespace, String podName);

    /** Names of the pods in {@code namespace} labelled {@code app=appLabel} that run, or would run, on {@code nodeName}. */
    List<String> podNames(String namespace, String appLabel, String nodeName);
}
