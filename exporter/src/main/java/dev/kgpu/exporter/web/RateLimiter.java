package dev.kgpu.exporter.web;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * The web config's {@code rate_limit}: a token bucket that starts full with {@code burst} tokens and gains
 * one every {@code interval}, as Go's {@code rate.NewLimiter(rate.Every(interval), burst)} that
 * exporter-toolkit uses. Thread-safe.
 */
public final class RateLimiter {

    private final long intervalNanos;
    private final int burst;
    private final InstantSource clock;
    private double tokens;
    private Instant last;

    public RateLimiter(WebConfig.RateLimit limit, InstantSource clock) {
        this.intervalNanos = limit.interval().toNanos();
        this.burst = limit.burst();
        this.clock = clock;
        this.tokens = burst;
        this.last = clock.instant();
    }

    /** Takes a token when one is there. */
    public synchronized boolean tryAcquire() {
        Instant now = clock.instant();
        long elapsed = Duration.between(last, now).toNanos();
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + (double) elapsed / intervalNanos);
            last = now;
        }
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
