package dev.kgpu.plugin.health;

import java.util.OptionalInt;

/** Receives health events from a device source's watch thread. Implementations must not block. */
public interface HealthSink {

    /** A critical XID; instance ids are empty when it concerns the whole GPU. */
    void xid(String gpuUuid, long xid, OptionalInt gpuInstanceId, OptionalInt computeInstanceId);

    /** The watch failed (driver gone, GPU lost): the source stops delivering events. */
    void lost(String reason);
}
