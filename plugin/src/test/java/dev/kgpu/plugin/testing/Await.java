package dev.kgpu.plugin.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a timeout (polling every 5 ms), never a fixed sleep. */
public final class Await {

    public static final Duration DEFAULT = Duration.ofSeconds(15);

    private Await() {
    }

    public static void until(BooleanSupplier condition, String description) {
        until(condition, DEFAULT, description);
    }

    public static void until(BooleanSupplier condition, Duration timeout, String description) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + description);
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    /** Waits until {@code supplier} returns non-null and returns it. */
    public static <T> T value(Supplier<T> supplier, String description) {
        Object[] holder = new Object[1];
        until(() -> (holder[0] = supplier.get()) != null, description);
        @SuppressWarnings("unchecked")
        T value = (T) holder[0];
        return value;
    }
}
