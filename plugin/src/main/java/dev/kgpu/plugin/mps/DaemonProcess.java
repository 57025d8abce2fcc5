package dev.kgpu.plugin.mps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A control daemon's process, found through the pid file {@code nvidia-cuda-mps-control -d} writes. The daemon is
 * not this process's child ({@code -d} detaches it), so when it ends its parent is whoever reaps orphans: until then it
 * is a zombie, which counts as ended here. Stateless.
 */
final class DaemonProcess {

    private static final Duration POLL = Duration.ofMillis(20);

    private DaemonProcess() {
    }

    /** The pid in {@code pidFile}, when it holds one. */
    static OptionalLong read(Path pidFile) {
        try {
            return OptionalLong.of(Long.parseLong(Files.readString(pidFile).strip()));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Whether process {@code pid} runs: it exists and is no zombie. */
    static boolean running(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int end = stat.lastIndexOf(')');
            return end < 0 || end + 2 >= stat.length() || stat.charAt(end + 2) != 'Z';
        } catch (IOException e) {
            return false; // gone between the two looks
        }
    }

    /** Waits up to {@code timeout} for {@code pid} to end; whether it did. */
    static boolean awaitEnd(long pid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (running(pid)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(POLL.toNanos());
        }
        return true;
    }

    /** Ends {@code pid} with SIGKILL and waits up to {@code timeout}; whether it ended. */
    static boolean kill(long pid, Duration timeout) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        return awaitEnd(pid, timeout);
    }
}
