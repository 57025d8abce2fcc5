package dev.kgpu.plugin.lifecycle;

import dev.kgpu.plugin.health.HealthTracker;

import java.time.Duration;

/**
 * What the supervisor offers its {@link LifecycleListener}s: the tracker of the served devices' health, and a way to
 * run work on the supervisor thread later, in order with its events (a retry of something the listener serves). Given
 * to each listener once, before anything else ({@link LifecycleListener#attached}). Thread-safe.
 */
public interface Supervision {

    /** The health of every device the plugin watches, the listeners' own devices among them. */
    HealthTracker health();

    /** Runs {@code task} on the supervisor thread after {@code delay}; dropped when the supervisor stops first. */
    void schedule(Duration delay, Runnable task);
}
