package dev.kgpu.plugin.dra;

import java.util.List;
import java.util.Optional;

/**
 * What the DRA driver has achieved, for the health checks and tests. Immutable.
 *
 * @param serving        the DRA and registration servers run
 * @param registered     the kubelet said the driver is registered (and did not refuse it since)
 * @param slicesCurrent  the node's ResourceSlices hold the devices offered now
 * @param generation     the pool's generation last published
 * @param devices        the devices offered now (Healthy or not)
 * @param preparedClaims the claims prepared now
 * @param problems       what keeps it from serving everything it should, one line each
 */
public record DraStatus(boolean serving, boolean registered, boolean slicesCurrent, Optional<Long> generation, int devices,
                        int preparedClaims, List<String> problems) {

    public static final DraStatus STARTING = new DraStatus(false, false, false, Optional.empty(), 0, 0,
            List.of("the DRA driver has not started"));

    public DraStatus {
        problems = List.copyOf(problems);
    }

    /** Liveness: the servers run. */
    public boolean live() {
        return serving;
    }

    /** Readiness: served, registered with the kubelet, and the slices published. */
    public boolean ready() {
        return serving && registered && slicesCurrent;
    }
}
