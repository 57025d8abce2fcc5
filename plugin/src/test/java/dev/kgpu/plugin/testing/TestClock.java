package dev.kgpu.plugin.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** An {@link InstantSource} that moves only when a test advances it. Thread-safe. */
public final class TestClock implements InstantSource {

    private volatile Instant now;

    public TestClock(Instant start) {
        this.now = start;
    }

    public TestClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Override
    public Instant instant() {
        return now;
    }

    public synchronized void advance(Duration by) {
        now = now.plus(by);
    }
}
