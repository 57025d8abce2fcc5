package dev.kgpu.discovery.run;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The outcome of the last labelling pass, for the readiness probe. Written by the supervisor thread,
 * read by the health endpoint.
 */
public final class PassStatus {

    /** @param ready whether the last pass published GPU labels; @param detail what happened, for the probe's output */
    public record Snapshot(boolean ready, String detail, Instant at) {
    }

    private final AtomicReference<Snapshot> current = new AtomicReference<>(new Snapshot(false, "no labelling pass yet", Instant.EPOCH));

    public Snapshot current() {
        return current.get();
    }

    void set(boolean ready, String detail, Instant at) {
        current.set(new Snapshot(ready, detail, at));
    }
}
