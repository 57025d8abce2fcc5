package dev.kgpu.simulator;

import dev.kgpu.simulator.agents.SimulatorException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/** Waits on a condition with a timeout, checking it every 20 ms: never a fixed sleep. */
final class Await {

    private static final long POLL_NANOS = Duration.ofMillis(20).toNanos();

    private Await() {
    }

    /**
     * Returns the first value {@code probe} yields within {@code timeout}.
     *
     * @param what      what is waited for, e.g. {@code "discovery's labels on Node x"}
     * @param lastState what was seen last, for the timeout's message
     * @throws SimulatorException.TimedOut when nothing came
     */
    static <T> T until(String what, Duration timeout, Supplier<Optional<T>> probe, Supplier<String> lastState) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new SimulatorException.TimedOut("timed out after " + timeout.toSeconds() + " s waiting for " + what
                        + "; last seen: " + lastState.get());
            }
            if (Thread.interrupted()) {
                throw new SimulatorException.TimedOut("interrupted while waiting for " + what);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
