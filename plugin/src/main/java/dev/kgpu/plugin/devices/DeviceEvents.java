package dev.kgpu.plugin.devices;

import java.util.OptionalInt;

/**
 * What a device source's health watch reports, raw, on the source's own thread: XID errors as the driver
 * delivers them, and the watch failing. Whether an event changes a device's health is not decided here.
 * Implementations must not block.
 */
public interface DeviceEvents {

    /** An XID error; instance ids are empty when it concerns the whole GPU. */
    void xid(String gpuUuid, long xid, OptionalInt gpuInstanceId, OptionalInt computeInstanceId);

    /** The watch failed (driver gone, GPU lost): the source delivers no more events on it. */
    void watchFailed(String reason);
}
