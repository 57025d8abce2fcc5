package dev.kgpu.plugin.lifecycle;

import java.util.concurrent.CountDownLatch;

/** What the supervisor thread reacts to. Everything that starts or stops servers arrives as one of these. */
sealed interface LifecycleEvent {

    /** The plugin starts. */
    record Start() implements LifecycleEvent {
    }

    /** {@code kubelet.sock} was created: the kubelet restarted and deleted every socket. */
    record KubeletSocketCreated() implements LifecycleEvent {
    }

    /** A file in the device-plugins directory was deleted; it may be one of the plugin's sockets. */
    record SocketDeleted(String name) implements LifecycleEvent {
    }

    /** SIGHUP: re-read the configuration and restart the servers with it. */
    record Reload() implements LifecycleEvent {
    }

    /** SIGTERM or shutdown: stop serving, remove the sockets, then count {@code done} down. */
    record Stop(CountDownLatch done) implements LifecycleEvent {
    }

    /** The NVML event monitor failed. */
    record NvmlLost(String reason) implements LifecycleEvent {
    }

    /** NVML answers probes again after it was lost. */
    record NvmlRestored() implements LifecycleEvent {
    }

    /** A backoff timer fired; stale when {@code generation} is not the current one. */
    record Retry(long generation) implements LifecycleEvent {
    }
}
