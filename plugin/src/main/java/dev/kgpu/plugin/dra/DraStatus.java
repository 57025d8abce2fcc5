package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.node.FrontEndStatus;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * @param bootIdKnown    this boot's id could be read (else a checkpoint of an earlier boot cannot be told apart)
 * @param problems       what keeps it from serving everything it should, one line each
 */
public record DraStatus(boolean serving, boolean registered, boolean slicesCurrent, Optional<Long> generation, int devices,
                        int preparedClaims, boolean bootIdKnown, List<String> problems) implements FrontEndStatus {

    public static final DraStatus STARTING = new DraStatus(false, false, false, Optional.empty(), 0, 0,
            true, List.of("the DRA driver has not started"));

    public DraStatus {
        problems = List.copyOf(problems);
    }

    @Override
    public String frontEnd() {
        return DraDriver.NAME;
    }

    /** Liveness: the servers run. */
    @Override
    public boolean live() {
        return serving;
    }

    /** Readiness: served, registered with the kubelet, and the slices published. */
    @Override
    public boolean ready() {
        return serving && registered && slicesCurrent;
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("draServing", serving);
        details.put("draRegistered", registered);
        details.put("draSlicesPublished", slicesCurrent);
        details.put("draPreparedClaims", (long) preparedClaims);
        details.put("draBootId", bootIdKnown ? "known" : "unknown");
        return details;
    }
}
