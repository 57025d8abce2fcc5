package dev.kgpu.plugin.node;

import java.time.Duration;

/** What the node runtime may ask of the thread that runs it ({@link NodeSupervisor}). Thread-safe. */
public interface Control {

    /** Runs {@code task} on the node's thread, after the tasks already waiting. */
    void post(Runnable task);

    /** Runs {@code task} on the node's thread after {@code delay}, unless cancelled first. */
    NodeContext.Timer after(Duration delay, Runnable task);

    /** The node cannot go on: the plugin should exit with {@code status}, saying {@code reason}. */
    void exit(int status, String reason);
}
