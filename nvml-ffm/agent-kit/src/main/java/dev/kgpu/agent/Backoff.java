package dev.kgpu.agent;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff between retries: the first wait is {@link Policy#initial()}, each later one twice as
 * long, never longer than {@link Policy#max()}; {@link #reset()} after a success starts again from the
 * initial wait.
 *
 * <pre>{@code
 * Backoff retry = new Backoff(Backoff.Policy.DEFAULT);   // 1 s, 2 s, 4 s ... 2 min
 * Duration wait = retry.next();                          // after a failure
 * retry.reset();                                         // after a success
 * }</pre>
 *
 * <p>Not thread-safe: the agent's supervisor thread owns it.
 */
public final class Backoff {

    private final Policy policy;
    private Duration next;

    public Backoff(Policy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.next = policy.initial();
    }

    /** How long to wait before the next try; doubles the wait after it, up to the maximum. */
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

    /**
     * The waits of a backoff.
     *
     * @param initial the first wait, positive
     * @param max     the longest wait, at least {@code initial}
     */
    public record Policy(Duration initial, Duration max) {

        /** 1 s doubling up to 2 min. */
        public static final Policy DEFAULT = new Policy(Duration.ofSeconds(1), Duration.ofMinutes(2));

        public Policy {
            Objects.requireNonNull(initial, "initial");
            Objects.requireNonNull(max, "max");
            if (initial.isNegative() || initial.isZero()) {
                throw new IllegalArgumentException("backoff initial was '" + initial + "' but it must be positive");
            }
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("backoff max was '" + max + "' but it must be at least the initial "
                        + initial);
            }
        }
    }
}
