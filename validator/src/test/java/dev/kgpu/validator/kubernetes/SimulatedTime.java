package dev.kgpu.validator.kubernetes;

import dev.kgpu.validator.core.Sleeper;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that moves only when the validator sleeps. Each sleep advances it and then lets the simulated
 * cluster catch up ({@code afterSleep}, e.g. "wait until the scheduler/kubelet has handled every pod"),
 * so a five-minute pod wait runs in milliseconds and never races the controller.
 */
final class SimulatedTime implements InstantSource, Sleeper {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final Instant start = now.get();
    private final Runnable afterSleep;

    SimulatedTime(Runnable afterSleep) {
        this.afterSleep = afterSleep;
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        now.updateAndGet(t -> t.plus(duration));
        afterSleep.run();
    }

    /** Simulated time spent sleeping so far. */
    Duration elapsed() {
        return Duration.between(start, now.get());
    }
}
