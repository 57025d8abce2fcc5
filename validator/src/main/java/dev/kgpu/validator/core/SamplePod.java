package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How sample pods are built: NVIDIA's {@code VALIDATOR_IMAGE_PULL_POLICY}, {@code VALIDATOR_IMAGE_PULL_SECRETS}
 * and {@code VALIDATOR_RUNTIME_CLASS}, with kgpu's CUDA sample image.
 */
public record SamplePod(String image, Optional<String> pullPolicy, List<String> pullSecrets,
                        Optional<String> runtimeClass) {

    public SamplePod {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(pullPolicy, "pullPolicy");
        pullSecrets = List.copyOf(pullSecrets);
        Objects.requireNonNull(runtimeClass, "runtimeClass");
    }

    PodRequest request(String namespace, String generateName, String appLabel, String nodeName, String container,
                       GpuRequest gpu) {
        return new PodRequest(namespace, generateName, appLabel, nodeName, container, image, pullPolicy,
                pullSecrets, runtimeClass, gpu);
    }
}
