package dev.kgpu.plugin.settings;

import dev.kgpu.config.HealthChecks;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.GoDuration;
import dev.kgpu.plugin.health.HealthPolicy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * kgpu's own health-recovery settings, which NVIDIA's plugin does not have (its devices never recover),
 * from environment variables:
 * <ul>
 *   <li>{@value #QUIET_PERIOD_ENV}: Go duration a device marked by an XID must stay free of new critical
 *       XIDs before it is probed for recovery; {@code 0} turns recovery off. Default {@code 1m}.</li>
 *   <li>{@value #RECOVERABLE_XIDS_ENV}: comma-separated XIDs that normally need a GPU reset (48, 79, ...)
 *       but may recover anyway. Default none.</li>
 *   <li>{@value #CHECK_INTERVAL_ENV}: Go duration between device probes. Default {@code 5s}.</li>
 * </ul>
 * Immutable.
 */
record RecoverySettings(Duration quietPeriod, Set<Long> recoverableXids, Duration checkInterval) {

    static final String QUIET_PERIOD_ENV = "KGPU_HEALTH_QUIET_PERIOD";
    static final String RECOVERABLE_XIDS_ENV = "KGPU_HEALTH_RECOVERABLE_XIDS";
    static final String CHECK_INTERVAL_ENV = "KGPU_HEALTH_CHECK_INTERVAL";
    static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(5);

    RecoverySettings {
        Objects.requireNonNull(quietPeriod, "quietPeriod");
        Objects.requireNonNull(checkInterval, "checkInterval");
        recoverableXids = Set.copyOf(recoverableXids);
    }

    /** @throws InvalidConfigException naming every malformed variable */
    static RecoverySettings fromEnvironment(Function<String, String> environment) {
        List<ValidationFailure> failures = new ArrayList<>();
        Duration quiet = duration(environment, QUIET_PERIOD_ENV, HealthPolicy.DEFAULT_QUIET_PERIOD, true, failures);
        Duration interval = duration(environment, CHECK_INTERVAL_ENV, DEFAULT_CHECK_INTERVAL, false, failures);
        Set<Long> xids = Set.of();
        try {
            xids = HealthChecks.xids(RECOVERABLE_XIDS_ENV, environment.apply(RECOVERABLE_XIDS_ENV));
        } catch (InvalidConfigException e) {
            failures.addAll(e.failures());
        }
        if (!failures.isEmpty()) {
            throw new InvalidConfigException(failures);
        }
        return new RecoverySettings(quiet, xids, interval);
    }

    private static Duration duration(Function<String, String> environment, String name, Duration fallback,
                                     boolean zeroAllowed, List<ValidationFailure> failures) {
        String text = environment.apply(name);
        if (text == null || text.isBlank()) {
            return fallback;
        }
        try {
            Duration value = GoDuration.parse(text.strip());
            if (value.isNegative() || (!zeroAllowed && value.isZero())) {
                failures.add(new ValidationFailure(name, text, zeroAllowed ? "must not be negative" : "must be positive"));
                return fallback;
            }
            return value;
        } catch (IllegalArgumentException e) {
            failures.add(new ValidationFailure(name, text, "must be a Go duration such as 90s or 5m (" + e.getMessage() + ")"));
            return fallback;
        }
    }
}
