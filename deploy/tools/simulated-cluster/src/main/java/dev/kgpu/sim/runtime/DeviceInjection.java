package dev.kgpu.sim.runtime;

import java.util.List;
import java.util.Map;

/**
 * What the kubelet hands the container runtime for one container from its device managers (a device plugin's
 * Allocate response): the parts a container runtime with the NVIDIA container toolkit reads.
 *
 * @param envs                variables, e.g. {@code NVIDIA_VISIBLE_DEVICES}
 * @param mountContainerPaths where mounts appear in the container (device names under the toolkit's folder)
 * @param annotations         e.g. {@code cdi.k8s.io/*} with CDI device names
 * @param cdiDevices          fully qualified CDI device names, e.g. {@code nvidia.com/gpu=0}
 */
public record DeviceInjection(Map<String, String> envs, List<String> mountContainerPaths,
                              Map<String, String> annotations, List<String> cdiDevices) {

    public DeviceInjection {
        envs = Map.copyOf(envs);
        mountContainerPaths = List.copyOf(mountContainerPaths);
        annotations = Map.copyOf(annotations);
        cdiDevices = List.copyOf(cdiDevices);
    }

    /** Both injections: this one's variables, mounts, annotations and CDI names, then {@code other}'s. */
    public DeviceInjection plus(DeviceInjection other) {
        Map<String, String> mergedEnvs = new java.util.LinkedHashMap<>(envs);
        mergedEnvs.putAll(other.envs);
        Map<String, String> mergedAnnotations = new java.util.LinkedHashMap<>(annotations);
        mergedAnnotations.putAll(other.annotations);
        return new DeviceInjection(mergedEnvs,
                java.util.stream.Stream.concat(mountContainerPaths.stream(), other.mountContainerPaths.stream()).toList(),
                mergedAnnotations,
                java.util.stream.Stream.concat(cdiDevices.stream(), other.cdiDevices.stream()).distinct().toList());
    }

    /** A container that asked for no device. */
    public static DeviceInjection none() {
        return new DeviceInjection(Map.of(), List.of(), Map.of(), List.of());
    }
}
