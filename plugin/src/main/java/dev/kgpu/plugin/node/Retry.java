package dev.kgpu.plugin.node;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.Supervisor;

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
    private Supervisor.Timer pending;

    Retry(NodeContext node, Backoff.Policy policy, Runnable action) {
        this.node = Objects.requireNonNull(node, "node");
        this.backoff = new Backoff(policy);
        this.action = Objects.requireNonNull(action, "action");
    }

    /** After a failure: runs the action after the next wait, which it returns; a retry already waiting is dropped. */
    public Duration schedule() {
        cancel();
        Duration wait = backoff.next();
        pending = node.after(wait, () -> {
            pending = null;
            action.run();
        });
        return wait;
    }

    /** After a success: a retry waiting is dropped, and the next failure waits the first wait again. */
    public void reset() {
        cancel();
        backoff.reset();
    }

    /** A retry waiting is dropped (cancelled on the node's thread, its timer never fires); the waits go on. */
    public void cancel() {
        if (pending != null) {
            pending.cancel();
            pending = null;
        }
    }
}
