package dev.kgpu.sim.kubelet;

import java.util.List;

/** One device as the last ListAndWatch message described it. */
public record DeviceState(String id, boolean healthy, List<Long> numaNodes) {

    public DeviceState {
        numaNodes = List.copyOf(numaNodes);
    }

    DeviceState unhealthy() {
        return new DeviceState(id, false, numaNodes);
    }
}
