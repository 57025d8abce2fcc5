package dev.kgpu.plugin.health;


import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Which XIDs make a device Unhealthy and which let it recover. Immutable.
 *
 * @param checks          NVIDIA's XID checks: its ignored XIDs with {@code DP_DISABLE_HEALTHCHECKS} and
 *                        {@code DP_ENABLE_HEALTHCHECKS} applied
 * @param quietPeriod     how long a device must see no new critical XID before it is probed for recovery;
 *                        {@link Duration#ZERO} disables recovery
 * @param recoverableXids XIDs from {@link XidTable#RESET_REQUIRED} the operator allows to recover anyway
 */
public record HealthPolicy(HealthChecks checks, Duration quietPeriod, Set<Long> recoverableXids) {

    /** Default quiet period before an XID-marked device is probed for recovery. */
    public static final Duration DEFAULT_QUIET_PERIOD = Duration.ofMinutes(1);

    public HealthPolicy {
        Objects.requireNonNull(checks, "checks");
        Objects.requireNonNull(quietPeriod, "quietPeriod");
        if (quietPeriod.isNegative()) {
            throw new IllegalArgumentException("quietPeriod was '" + quietPeriod + "' but it must not be negative");
        }
        recoverableXids = Set.copyOf(recoverableXids);
    }

    /** Whether {@code xid} marks a device Unhealthy. */
    public boolean isCritical(long xid) {
        return !checks.ignores(xid);
    }

    /** Whether any XID can mark a device, so NVML's event monitor is worth running. */
    public boolean watchesEvents() {
        return checks.xidChecksEnabled();
    }

    /** Whether a device marked by {@code xid} may recover. */
    public boolean recovers(long xid) {
        return !quietPeriod.isZero() && (XidTable.recoversByDefault(xid) || recoverableXids.contains(xid));
    }
}
