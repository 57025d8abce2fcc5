package dev.kgpu.plugin.health;

import java.util.Map;

/**
 * What kgpu does with each NVIDIA XID. An XID marks a device Unhealthy unless it is ignored; a device
 * marked by an XID that {@link #recoversByDefault(long) recovers} returns to Healthy after a quiet period
 * with no new critical XID and a successful NVML probe. XIDs that mean the GPU must be reset (or taken out
 * of service) do not recover on their own: the device stays Unhealthy until the plugin restarts
 * (after the GPU reset), unless the operator lists them in {@code KGPU_HEALTH_RECOVERABLE_XIDS}.
 *
 * <p>Sources: NVIDIA's XID catalogue (docs.nvidia.com/deploy/xid-errors) for the meaning and the
 * action it recommends. The XIDs NVIDIA's plugin ignores are {@code dev.kgpu.plugin.health.HealthChecks}'s.
 */
public final class XidTable {

    /** XIDs after which NVIDIA recommends a GPU reset (or more): no automatic recovery by default. */
    public static final Map<Long, String> RESET_REQUIRED = Map.ofEntries(
            Map.entry(48L, "double-bit ECC error"),
            Map.entry(61L, "internal micro-controller breakpoint"),
            Map.entry(62L, "internal micro-controller halt"),
            Map.entry(63L, "ECC page retirement or row remapping pending"),
            Map.entry(64L, "ECC page retirement or row remapping failure"),
            Map.entry(74L, "NVLink error"),
            Map.entry(79L, "GPU has fallen off the bus"),
            Map.entry(95L, "uncontained ECC error"),
            Map.entry(119L, "GSP RPC timeout"),
            Map.entry(120L, "GSP error"),
            Map.entry(140L, "unrecovered ECC error"));

    private XidTable() {
    }

    /** Whether a device marked Unhealthy by {@code xid} may return to Healthy without a GPU reset. */
    public static boolean recoversByDefault(long xid) {
        return !RESET_REQUIRED.containsKey(xid);
    }
}
