package dev.kgpu.plugin.dra;

import java.util.List;
import java.util.Objects;

/**
 * One device of a prepared claim, as NodePrepareResources returns it and the checkpoint keeps it. Immutable.
 *
 * @param requests     the claim's requests it serves (subrequests reduced to their request)
 * @param pool         its pool (the node)
 * @param device       its name in the pool, e.g. {@code gpu-3}
 * @param uuid         the GPU or MIG device it stands for, {@code GPU-...} or {@code MIG-...}
 * @param cdiDeviceIds the fully-qualified CDI names the runtime resolves through the claim's spec
 */
public record PreparedDevice(List<String> requests, String pool, String device, String uuid, List<String> cdiDeviceIds) {

    public PreparedDevice {
        requests = List.copyOf(requests);
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(uuid, "uuid");
        cdiDeviceIds = List.copyOf(cdiDeviceIds);
    }
}
