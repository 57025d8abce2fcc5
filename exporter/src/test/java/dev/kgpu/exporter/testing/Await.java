package dev.kgpu.exporter.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/** Waits for a condition with a deadline, checking it every {@code poll}; fails with {@code what} on timeout. */
public final class Await {

    private Await() {
    }

    public static <T> T until(String what, Duration timeout, Supplier<T> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Throwable last = null;
        while (true) {
            try {
                T value = condition.get();
                if (value != null && !Boolean.FALSE.equals(value)) {
                    return value;
                }
            } catch (RuntimeException | AssertionError e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                AssertionError error = new AssertionError("timed out after " + timeout + " waiting for " + what);
                if (last != null) {
                    error.initCause(last);
                }
                throw error;
            }
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
    }
}
