package dev.kgpu.discovery.run;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff: the first retry after {@code initial}, each later one twice as long, never longer
 * than {@code max}. Not thread-safe: the supervisor thread owns it.
 */
public final class Backoff {

    private final Policy policy;
    private Duration next;

    public Backoff(Policy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.next = policy.initial();
    }

    /** How long to wait before the next try; doubles the wait after it. */
    public Duration next() {
        Duration current = next;
        Duration doubled = next.multipliedBy(2);
        next = doubled.compareTo(policy.max()) > 0 ? policy.max() : doubled;
        return current;
    }

    /** Back to the initial wait, after a success. */
    public void reset() {
        next = policy.initial();
    }

    /** @param initial the first wait, positive; @param max the longest wait, at least {@code initial} */
    public record Policy(Duration initial, Duration max) {

        /** 1 s doubling up to 2 min. */
        public static final Policy DEFAULT = new Policy(Duration.ofSeconds(1), Duration.ofMinutes(2));

        public Policy {
            Objects.requireNonNull(initial, "initial");
            Objects.requireNonNull(max, "max");
            if (initial.isNegative() || initial.isZero()) {
                throw new IllegalArgumentException("retry initial was '" + initial + "' but it must be positive");
            }
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("retry max was '" + max + "' but it must be at least the initial " + initial);
            }
        }
    }
}
