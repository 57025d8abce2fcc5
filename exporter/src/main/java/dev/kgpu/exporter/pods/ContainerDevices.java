package dev.kgpu.exporter.pods;

import java.util.List;

/**
 * Devices of one resource the kubelet gave one container: one {@code ContainerDevices} entry of a
 * PodResources {@code List} answer, with its pod and container.
 */
public record ContainerDevices(String pod, String namespace, String container, String resourceName,
                               List<String> deviceIds) {

    public ContainerDevices {
        if (pod == null || namespace == null || container == null || resourceName == null || deviceIds == null) {
            throw new IllegalArgumentException("container devices need a pod, namespace, container, resource and ids");
        }
        deviceIds = List.copyOf(deviceIds);
    }
}
