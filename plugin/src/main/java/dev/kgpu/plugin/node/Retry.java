package dev.kgpu.plugin.node;

import dev.kgpu.agent.Backoff;

import java.time.Duration;
import java.util.Objects;

/**
 * One thing retried with backoff on the node's thread: the node's own read of the devices, and each front-end's
 * serving and registering ({@link NodeContext#retry}). {@link #schedule()} after a failure runs the action after the
 * next wait, replacing a retry already waiting; {@link #reset()} after a success drops a waiting retry and starts the
 * waits again from the first. Confined to the node's thread.
 */
public final class Retry {

    private final NodeContext node;
    private final Backoff backoff;
    private final Runnable action;
    private NodeContext.Timer pending;
    /** Stamps each scheduled run, so one replaced or cancelled after its timer fired does not run. */
    private long generation;

    Retry(NodeContext node, Backoff.Policy policy, Runnable action) {
        this.node = Objects.requireNonNull(node, "node");
        this.backoff = new Backoff(policy);
        this.action = Objects.requireNonNull(action, "action");
    }

    /** After a failure: runs the action after the next wait, which it returns; a retry already waiting is dropped. */
    public Duration schedule() {
        cancel();
        long stamp = generation;
        Duration wait = backoff.next();
        pending = node.after(wait, () -> {
            if (stamp == generation) {
                pending = null;
                action.run();
            }
        });
        return wait;
    }

    /** After a success: a retry waiting is dropped, and the next failure waits the first wait again. */
    public void reset() {
        cancel();
        backoff.reset();
    }

    /** A retry waiting is dropped; the waits go on from where they were. */
    public void cancel() {
        generation++;
        if (pending != null) {
            pending.cancel();
            pending = null;
        }
    }
}
