package dev.kgpu.plugin.health;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Which XIDs make a device Unhealthy and which let it recover. Immutable.
 *
 * @param checksEnabled     false when {@code DP_DISABLE_HEALTHCHECKS} is {@code all} or {@code xids}: only
 *                          {@code forcedXids} count then
 * @param ignoredXids       XIDs that never mark a device (defaults plus {@code DP_DISABLE_HEALTHCHECKS})
 * @param forcedXids        XIDs that always mark a device ({@code DP_ENABLE_HEALTHCHECKS}), even if ignored
 * @param quietPeriod       how long a device must see no new critical XID before it is probed for recovery;
 *                          {@link Duration#ZERO} disables recovery
 * @param recoverableXids   XIDs from {@link XidTable#RESET_REQUIRED} the operator allows to recover anyway
 */
public record HealthPolicy(boolean checksEnabled, Set<Long> ignoredXids, Set<Long> forcedXids, Duration quietPeriod,
                           Set<Long> recoverableXids) {

    /** Default quiet period before an XID-marked device is probed for recovery. */
    public static final Duration DEFAULT_QUIET_PERIOD = Duration.ofMinutes(1);

    public HealthPolicy {
        ignoredXids = Set.copyOf(ignoredXids);
        forcedXids = Set.copyOf(forcedXids);
        recoverableXids = Set.copyOf(recoverableXids);
        Objects.requireNonNull(quietPeriod, "quietPeriod");
        if (quietPeriod.isNegative()) {
            throw new IllegalArgumentException("quietPeriod was '" + quietPeriod + "' but it must not be negative");
        }
    }

    /** NVIDIA's defaults with kgpu's recovery after {@link #DEFAULT_QUIET_PERIOD}. */
    public static HealthPolicy defaults() {
        return new HealthPolicy(true, XidTable.DEFAULT_IGNORED, Set.of(), DEFAULT_QUIET_PERIOD, Set.of());
    }

    /** Whether {@code xid} marks a device Unhealthy. */
    public boolean isCritical(long xid) {
        if (forcedXids.contains(xid)) {
            return true;
        }
        return checksEnabled && !ignoredXids.contains(xid);
    }

    /** Whether a device marked by {@code xid} may recover. */
    public boolean recovers(long xid) {
        return !quietPeriod.isZero() && (XidTable.recoversByDefault(xid) || recoverableXids.contains(xid));
    }

    /** Whether any XID can mark a device, so the NVML event monitor is worth running. */
    public boolean monitorsEvents() {
        return checksEnabled || !forcedXids.isEmpty();
    }
}
