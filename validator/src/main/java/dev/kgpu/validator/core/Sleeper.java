package dev.kgpu.validator.core;

import java.time.Duration;

/** Waits between polls. Production sleeps the thread; tests advance simulated time instead. */
@FunctionalInterface
public interface Sleeper {

    void sleep(Duration duration) throws InterruptedException;

    /** The real thing: {@link Thread#sleep(Duration)}. */
    static Sleeper system() {
        return Thread::sleep;
    }
}
