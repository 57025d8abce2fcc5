package dev.kgpu.gpucheck.agents;

import java.time.Duration;

/** When the whole check must end; every wait is capped by it. Thread-safety: immutable. */
public record Deadline(long endNanos) {

    public static Deadline in(Duration total) {
        return new Deadline(System.nanoTime() + total.toNanos());
    }

    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, endNanos - System.nanoTime()));
    }

    /** {@code wanted}, or less when less time is left (never below one second). */
    public Duration cap(Duration wanted) {
        Duration left = remaining();
        Duration capped = wanted.compareTo(left) < 0 ? wanted : left;
        return capped.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : capped;
    }

    /** Whether at least {@code needed} is left. */
    public boolean allows(Duration needed) {
        return remaining().compareTo(needed) >= 0;
    }
}
