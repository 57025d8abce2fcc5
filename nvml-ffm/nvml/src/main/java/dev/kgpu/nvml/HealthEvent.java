package dev.kgpu.nvml;

import java.time.Instant;
import java.util.OptionalInt;

/** Something NVML reported that may make a GPU unfit for work. */
public sealed interface HealthEvent {

    Instant observedAt();

    /**
     * A critical XID error ({@code nvmlEventTypeXidCriticalError}). On a MIG-enabled GPU NVML may name the
     * GPU instance and compute instance it hit; both are empty when the error concerns the whole GPU.
     */
    record XidError(String gpuUuid, long xid, OptionalInt gpuInstanceId, OptionalInt computeInstanceId,
                    Instant observedAt) implements HealthEvent {
    }

    /** An ECC error event; {@code uncorrectable} for double-bit errors. */
    record EccError(String gpuUuid, boolean uncorrectable, Instant observedAt) implements HealthEvent {
    }

    /**
     * Waiting for events failed (the driver went away, a GPU fell off the bus, ...). The monitor stops;
     * a caller should treat every watched GPU as unhealthy until NVML answers again.
     */
    record MonitorFailure(NvmlException cause, Instant observedAt) implements HealthEvent {
    }
}
