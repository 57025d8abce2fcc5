package dev.kgpu.plugin.lifecycle;

/** What the supervisor thread reacts to. Everything that starts or stops servers arrives as one of these. */
sealed interface LifecycleEvent {

    /** The plugin starts. */
    record Start() implements LifecycleEvent {
    }

    /** The kubelet's folder changed: the kubelet restarted, or a socket was deleted. */
    record KubeletChanged(Kubelet.Change change) implements LifecycleEvent {
    }

    /** SIGHUP: load the settings again and restart the servers with them. */
    record Reload() implements LifecycleEvent {
    }

    /** A backoff timer fired; stale when {@code generation} is not the current one. */
    record Retry(long generation) implements LifecycleEvent {
    }

    /** A listener's task, scheduled through {@link Supervision#schedule}. */
    record Task(Runnable task) implements LifecycleEvent {
    }

    /** SIGTERM or shutdown: stop serving, remove the sockets, end the supervisor thread. */
    record Stop() implements LifecycleEvent {
    }
}
