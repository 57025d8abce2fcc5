package dev.kgpu.plugin.health;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.ValueType;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Which XIDs mark a GPU unhealthy, from NVIDIA's environment variables {@code DP_DISABLE_HEALTHCHECKS}
 * and {@code DP_ENABLE_HEALTHCHECKS} (NVIDIA {@code internal/rm/health.go}):
 * <ul>
 * <li>{@code DP_DISABLE_HEALTHCHECKS}: {@code all} or {@code xids} turns XID health checks off; otherwise a
 *     comma-separated list of XIDs to ignore on top of {@link #DEFAULT_IGNORED_XIDS}.</li>
 * <li>{@code DP_ENABLE_HEALTHCHECKS}: XIDs to check even if ignored by default or by the first variable;
 *     {@code all} checks every XID, the default-ignored ones included.</li>
 * </ul>
 * Values are case-insensitive and blanks around commas are ignored. Unlike NVIDIA, a malformed entry is an
 * error naming the variable (NVIDIA logs and drops it), and {@code DP_DISABLE_HEALTHCHECKS=all} with
 * {@code DP_ENABLE_HEALTHCHECKS=48} checks XID 48 only, as NVIDIA documents (its code checks nothing).
 *
 * <p>Immutable and thread-safe.
 *
 * @param allDisabled   {@code DP_DISABLE_HEALTHCHECKS} is {@code all} or {@code xids}
 * @param disabledXids  the extra XIDs {@code DP_DISABLE_HEALTHCHECKS} lists
 * @param allEnabled    {@code DP_ENABLE_HEALTHCHECKS} is {@code all}
 * @param enabledXids   the XIDs {@code DP_ENABLE_HEALTHCHECKS} lists
 */
public record HealthChecks(boolean allDisabled, Set<Long> disabledXids, boolean allEnabled, Set<Long> enabledXids) {

    public static final String DISABLE_ENV = "DP_DISABLE_HEALTHCHECKS";
    public static final String ENABLE_ENV = "DP_ENABLE_HEALTHCHECKS";

    /**
     * XIDs that are application errors, not GPU faults, and never mark a GPU unhealthy unless enabled:
     * 13 graphics engine exception, 31 GPU memory page fault, 43 GPU stopped processing, 45 preemptive
     * cleanup, 68 video processor exception, 109 context switch timeout.
     */
    public static final Set<Long> DEFAULT_IGNORED_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

    /** Neither variable set. */
    public static final HealthChecks DEFAULT = new HealthChecks(false, Set.of(), false, Set.of());

    public HealthChecks {
        disabledXids = Set.copyOf(disabledXids);
        enabledXids = Set.copyOf(enabledXids);
    }

    /**
     * Reads both variables through {@code environment}.
     *
     * @throws InvalidConfigException naming each variable with a malformed entry
     */
    public static HealthChecks fromEnvironment(Function<String, String> environment) {
        return parse(environment.apply(DISABLE_ENV), environment.apply(ENABLE_ENV));
    }

    /**
     * Parses the two variables' values; {@code null} means unset.
     *
     * @throws InvalidConfigException naming each variable with a malformed entry
     */
    public static HealthChecks parse(String disable, String enable) {
        List<ValidationFailure> failures = new ArrayList<>();
        Parsed disabled = parse(DISABLE_ENV, disable, failures);
        Parsed enabled = parse(ENABLE_ENV, enable, failures);
        if (!failures.isEmpty()) {
            throw new InvalidConfigException(failures);
        }
        return new HealthChecks(disabled.all(), disabled.xids(), enabled.all(), enabled.xids());
    }

    /**
     * XID numbers, comma-separated, blanks around commas ignored ({@code 48, 79}); empty means none. The type
     * of a setting that lists XIDs, such as kgpu's {@code KGPU_HEALTH_RECOVERABLE_XIDS}.
     */
    public static final ValueType<Set<Long>> XID_LIST = ValueType.of("XID[,XID...]",
            text -> Set.copyOf(xids(text, false).xids()),
            xids -> xids.stream().sorted().map(String::valueOf).collect(Collectors.joining(",")));

    /**
     * These checks with {@code xids} ignored as well, as if {@code DP_DISABLE_HEALTHCHECKS} listed them (NVIDIA's DRA
     * driver's {@code ADDITIONAL_XIDS_TO_IGNORE}); {@code DP_ENABLE_HEALTHCHECKS} still wins.
     */
    public HealthChecks ignoring(Set<Long> xids) {
        if (xids.isEmpty()) {
            return this;
        }
        Set<Long> disabled = new LinkedHashSet<>(disabledXids);
        disabled.addAll(xids);
        return new HealthChecks(allDisabled, disabled, allEnabled, enabledXids);
    }

    /** Whether XID events are watched at all: not when everything is disabled and nothing re-enabled. */
    public boolean xidChecksEnabled() {
        return !allDisabled || allEnabled || !enabledXids.isEmpty();
    }

    /** Whether {@code xid} leaves the GPU healthy. */
    public boolean ignores(long xid) {
        if (allEnabled || enabledXids.contains(xid)) {
            return false;
        }
        return allDisabled || disabledXids.contains(xid) || DEFAULT_IGNORED_XIDS.contains(xid);
    }

    private record Parsed(boolean all, Set<Long> xids) {
    }

    private static Parsed parse(String variable, String value, List<ValidationFailure> failures) {
        if (value == null) {
            return new Parsed(false, Set.of());
        }
        try {
            return xids(value, true);
        } catch (IllegalArgumentException e) {
            failures.add(new ValidationFailure(variable, value, e.getMessage()));
            return new Parsed(false, Set.of());
        }
    }

    /**
     * The one XID-list parser; with {@code keywords}, {@code all} and {@code xids} are allowed as well.
     *
     * @throws IllegalArgumentException with the reason, at the first entry that is not an XID
     */
    private static Parsed xids(String value, boolean keywords) {
        boolean all = false;
        Set<Long> xids = new LinkedHashSet<>();
        for (String entry : value.toLowerCase(Locale.ROOT).split(",", -1)) {
            String token = entry.strip();
            if (token.isEmpty()) {
                continue;
            }
            if (keywords && (token.equals("all") || token.equals("xids"))) {
                all = true;
                continue;
            }
            try {
                long xid = Long.parseLong(token);
                if (xid < 0) {
                    throw new NumberFormatException();
                }
                xids.add(xid);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException((keywords ? "must be 'all', 'xids' or" : "must be")
                        + " a comma-separated list of XID numbers, but lists '" + token + "'");
            }
        }
        return new Parsed(all, xids);
    }
}
