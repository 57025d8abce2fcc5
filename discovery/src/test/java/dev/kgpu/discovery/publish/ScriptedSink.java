package dev.kgpu.discovery.publish;

import dev.kgpu.discovery.labels.Labels;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** A sink for supervisor tests: refuses the first {@code refusals} publishes with a 503, then records what it gets. */
public final class ScriptedSink implements LabelSink {

    private final AtomicInteger refusalsLeft;
    private final BlockingQueue<Labels> published = new LinkedBlockingQueue<>();
    private final AtomicInteger attempts = new AtomicInteger();
    private final List<Labels> all = new ArrayList<>();
    private volatile boolean closed;

    public ScriptedSink(int refusals) {
        this.refusalsLeft = new AtomicInteger(refusals);
    }

    @Override
    public String name() {
        return "scripted";
    }

    @Override
    public synchronized Outcome publish(Labels labels) throws PublishException {
        attempts.incrementAndGet();
        if (refusalsLeft.getAndDecrement() > 0) {
            throw new PublishException.ApiRefused("patching Node test", 503, "etcd unavailable", null);
        }
        boolean same = !all.isEmpty() && all.getLast().sameIgnoringTimestamp(labels);
        all.add(labels);
        published.add(labels);
        return same ? Outcome.UNCHANGED : Outcome.WROTE;
    }

    @Override
    public void close() {
        closed = true;
    }

    /** Every publish that got through, in order. */
    public BlockingQueue<Labels> published() {
        return published;
    }

    public int attempts() {
        return attempts.get();
    }

    public boolean closed() {
        return closed;
    }
}
