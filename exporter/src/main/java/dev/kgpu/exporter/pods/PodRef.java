package dev.kgpu.exporter.pods;

import java.util.Optional;

/**
 * A container that holds a device, as printed on its series: {@code container}, {@code namespace},
 * {@code pod}, and {@code vgpu} (the replica of a shared GPU, only with {@code KUBERNETES_VIRTUAL_GPUS}).
 */
public record PodRef(String pod, String namespace, String container, Optional<String> vgpu) {
}
