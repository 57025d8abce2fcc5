package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A CUDA sample pod to run on one node.
 *
 * @param generateName e.g. {@code nvidia-cuda-validator-}
 * @param appLabel     value of the {@code app} label, e.g. {@code nvidia-cuda-validator}
 * @param nodeName     the node the pod must run on (required node affinity on {@code metadata.name}, so the
 *                     scheduler still checks GPU resources)
 * @param container    the container's name
 * @param image        the CUDA sample image; its own command runs vectorAdd
 * @param pullPolicy   {@code Always}, {@code IfNotPresent} or {@code Never}; empty for the cluster default
 * @param gpu          how it asks for its one GPU: {@code nvidia.com/gpu}, or a ResourceClaim of a DeviceClass
 */
public record PodRequest(String namespace, String generateName, String appLabel, String nodeName,
                         String container, String image, Optional<String> pullPolicy, List<String> pullSecrets,
                         Optional<String> runtimeClass, GpuRequest gpu) {

    public PodRequest {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(generateName, "generateName");
        Objects.requireNonNull(appLabel, "appLabel");
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(container, "container");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(pullPolicy, "pullPolicy");
        pullSecrets = List.copyOf(pullSecrets);
        Objects.requireNonNull(runtimeClass, "runtimeClass");
        Objects.requireNonNull(gpu, "gpu");
    }
}
