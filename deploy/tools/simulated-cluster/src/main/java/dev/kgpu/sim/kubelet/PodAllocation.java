package dev.kgpu.sim.kubelet;

import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;

import java.util.List;
import java.util.Map;

/** The devices and allocate responses the simulated kubelet gave one admitted pod. */
public record PodAllocation(String podName, List<ContainerAllocation> containers) {

    public PodAllocation {
        containers = List.copyOf(containers);
    }

    /** Every device id the pod holds for {@code resource}, over all containers. */
    public List<String> deviceIds(String resource) {
        return containers.stream().flatMap(c -> c.deviceIds().getOrDefault(resource, List.of()).stream()).toList();
    }

    /** The first container's allocation. */
    public ContainerAllocation container() {
        return containers.getFirst();
    }

    /**
     * One container: the devices per resource and the responses merged the kubelet's way (envs, mounts,
     * device specs and annotations first-wins across resources).
     */
    public record ContainerAllocation(String name, Map<String, List<String>> deviceIds, ContainerAllocateResponse response) {
        public ContainerAllocation {
            deviceIds = Map.copyOf(deviceIds);
        }

        public Map<String, String> envs() {
            return response.getEnvsMap();
        }
    }
}
