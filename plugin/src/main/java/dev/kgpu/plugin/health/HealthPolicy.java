package dev.kgpu.plugin.health;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * Which XIDs make a device Unhealthy and which let it recover. Immutable.
 *
 * @param critical        whether an XID marks a device Unhealthy (NVIDIA's ignored XIDs, {@code DP_DISABLE_HEALTHCHECKS}
 *                        and {@code DP_ENABLE_HEALTHCHECKS} applied)
 * @param watchEvents     whether any XID can mark a device, so the NVML event monitor is worth running
 * @param quietPeriod     how long a device must see no new critical XID before it is probed for recovery;
 *                        {@link Duration#ZERO} disables recovery
 * @param recoverableXids XIDs from {@link XidTable#RESET_REQUIRED} the operator allows to recover anyway
 */
public record HealthPolicy(LongPredicate critical, boolean watchEvents, Duration quietPeriod, Set<Long> recoverableXids) {

    /** Default quiet period before an XID-marked device is probed for recovery. */
    public static final Duration DEFAULT_QUIET_PERIOD = Duration.ofMinutes(1);

    public HealthPolicy {
        Objects.requireNonNull(critical, "critical");
        Objects.requireNonNull(quietPeriod, "quietPeriod");
        if (quietPeriod.isNegative()) {
            throw new IllegalArgumentException("quietPeriod was '" + quietPeriod + "' but it must not be negative");
        }
        recoverableXids = Set.copyOf(recoverableXids);
    }

    /** NVIDIA's default ignored XIDs, with kgpu's recovery after {@link #DEFAULT_QUIET_PERIOD}. */
    public static HealthPolicy defaults() {
        return new HealthPolicy(xid -> !XidTable.DEFAULT_IGNORED.contains(xid), true, DEFAULT_QUIET_PERIOD, Set.of());
    }

    /** Whether {@code xid} marks a device Unhealthy. */
    public boolean isCritical(long xid) {
        return critical.test(xid);
    }

    /** Whether a device marked by {@code xid} may recover. */
    public boolean recovers(long xid) {
        return !quietPeriod.isZero() && (XidTable.recoversByDefault(xid) || recoverableXids.contains(xid));
    }
}
