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
 * @param allocationSource where the node's ledger last learnt what the kubelet's device manager allocated
 * @param allocationSourceRequired kgpu's device plugin runs beside the driver: without a source the node cannot tell
 *                       which GPUs it handed out, and is not ready
 * @param mpsDaemons     why an MPS claim's control daemon does not run, one line per claim (naming it): the claim's
 *                       containers have no MPS server meanwhile, so the driver is not ready
 * @param problems       what keeps it from serving everything it should, one line each (besides {@code mpsDaemons})
 */
public record DraStatus(boolean serving, boolean registered, boolean slicesCurrent, Optional<Long> generation, int devices,
                        int preparedClaims, boolean bootIdKnown, AllocationSource allocationSource,
                        boolean allocationSourceRequired, List<String> mpsDaemons, List<String> problems)
        implements FrontEndStatus {

    public static final DraStatus STARTING = new DraStatus(false, false, false, Optional.empty(), 0, 0,
            true, AllocationSource.NONE, false, List.of(), List.of("the DRA driver has not started"));

    public DraStatus {
        java.util.Objects.requireNonNull(allocationSource, "allocationSource");
        mpsDaemons = List.copyOf(mpsDaemons);
        List<String> all = new java.util.ArrayList<>(problems);
        mpsDaemons.stream().filter(p -> !all.contains(p)).forEach(all::add);
        problems = List.copyOf(all);
    }

    /** Where the node learns what the kubelet's device manager allocated, as the health checks name it. */
    public enum AllocationSource {
        /** The kubelet's PodResources API {@code List}. */
        POD_RESOURCES("podresources"),
        /** The kubelet's device-manager checkpoint file, while PodResources cannot be reached. */
        DEVICE_MANAGER_CHECKPOINT("device-manager checkpoint"),
        /** Neither could be read (or not yet). */
        NONE("none");

        private final String label;

        AllocationSource(String label) {
            this.label = label;
        }

        /** The name the health checks show. */
        public String label() {
            return label;
        }
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

    /**
     * Readiness: served, registered with the kubelet, the slices published, and, beside kgpu's device plugin, what the
     * kubelet's device manager allocated read from one of its two sources, and every MPS claim's control daemon running.
     */
    @Override
    public boolean ready() {
        return serving && registered && slicesCurrent
                && (!allocationSourceRequired || allocationSource != AllocationSource.NONE) && mpsDaemons.isEmpty();
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("draServing", serving);
        details.put("draRegistered", registered);
        details.put("draSlicesPublished", slicesCurrent);
        details.put("draPreparedClaims", (long) preparedClaims);
        details.put("draBootId", bootIdKnown ? "known" : "unknown");
        details.put("draKubeletAllocations", allocationSource.label());
        return details;
    }
}
