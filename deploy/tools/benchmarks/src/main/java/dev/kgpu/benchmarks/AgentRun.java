package dev.kgpu.benchmarks;

import dev.kgpu.simulator.agents.ProcStatus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One agent started by the benchmark: its launcher (bubblewrap, directly or through {@code run-in-rootfs}) and the
 * agent's own process inside it, found among the launcher's descendants by its program's name, whose memory and CPU
 * time are read from {@code /proc}. Times are taken from the moment the launcher was spawned, so they include the
 * sandbox's set-up (a few milliseconds), as a container runtime's would.
 */
final class AgentRun implements AutoCloseable {

    private static final long POLL_NANOS = Duration.ofMillis(2).toNanos();
    /** How long an agent that exited may still take to be seen to have done what {@link #await} waits for. */
    static final Duration AFTER_EXIT = Duration.ofSeconds(5);

    private final Role role;
    private final Process launcher;
    private final String program;
    private final long spawnedNanos;
    private final Instant spawnedAt;
    private final Path log;
    private final int port;
    private volatile long agentPid;
    private volatile long peakKib;
    private volatile long lastCpuMillis = -1;

    private AgentRun(Role role, Process launcher, String program, long spawnedNanos, Instant spawnedAt, Path log, int port) {
        this.role = role;
        this.port = port;
        this.launcher = launcher;
        this.program = program;
        this.spawnedNanos = spawnedNanos;
        this.spawnedAt = spawnedAt;
        this.log = log;
    }

    /** How a subject starts one of its agents: the command, and the file name of the agent's own program. */
    record Launch(List<String> command, String program) {
        Launch {
            command = List.copyOf(command);
        }
    }

    /** Starts the agent; {@code port} is the HTTP port its launch was given. */
    static AgentRun start(Role role, Launch launch, Path log, int port) {
        ProcessBuilder builder = new ProcessBuilder(launch.command()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        Map<String, String> env = builder.environment();
        env.keySet().retainAll(List.of("PATH", "HOME", "LANG", "TZ"));
        try {
            Instant at = Instant.now();
            long nanos = System.nanoTime();
            Process process = builder.start();
            return new AgentRun(role, process, launch.program(), nanos, at, log, port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the " + role.label() + " with " + launch.command(), e);
        }
    }

    Role role() {
        return role;
    }

    /** The HTTP port it was given (its probes and metrics, where it has them). */
    int port() {
        return port;
    }

    Instant spawnedAt() {
        return spawnedAt;
    }

    /** Time from spawning the launcher to {@code at}. */
    Duration since(Instant at) {
        return Duration.between(spawnedAt, at);
    }

    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - spawnedNanos);
    }

    boolean alive() {
        return launcher.isAlive();
    }

    /** The agent's own process: the launcher's descendant running {@link Launch#program()}, once it has exec'd. */
    OptionalLong agentPid() {
        long pid = agentPid;
        if (pid != 0) {
            return OptionalLong.of(pid);
        }
        Optional<ProcessHandle> found = launcher.descendants()
                .filter(p -> p.info().command().map(c -> Path.of(c).getFileName().toString().equals(program)).orElse(false))
                .findFirst();
        found.ifPresent(p -> agentPid = p.pid());
        return found.map(p -> OptionalLong.of(p.pid())).orElse(OptionalLong.empty());
    }

    OptionalLong rssKib() {
        OptionalLong pid = agentPid();
        return pid.isPresent() ? ProcStatus.rssKib(pid.getAsLong()) : OptionalLong.empty();
    }

    OptionalLong peakRssKib() {
        OptionalLong pid = agentPid();
        return pid.isPresent() ? ProcStatus.peakRssKib(pid.getAsLong()) : OptionalLong.empty();
    }

    /** CPU time (user + system, all threads) the agent used so far; once it has exited, the last figure read. */
    OptionalLong cpuMillis() {
        OptionalLong pid = agentPid();
        OptionalLong now = pid.isPresent() ? ProcStatus.cpuMillis(pid.getAsLong()) : OptionalLong.empty();
        if (now.isPresent()) {
            lastCpuMillis = now.getAsLong();
            return now;
        }
        return lastCpuMillis >= 0 ? OptionalLong.of(lastCpuMillis) : OptionalLong.empty();
    }

    /** Whether the agent has {@code path} (as it sees it) mapped, e.g. its AOT cache. */
    boolean maps(String path) {
        OptionalLong pid = agentPid();
        if (pid.isEmpty()) {
            return false;
        }
        try (var lines = Files.lines(Path.of("/proc", Long.toString(pid.getAsLong()), "maps"))) {
            return lines.anyMatch(line -> line.endsWith(" " + path));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    /**
     * Polls {@code condition} every 2 ms until it holds and returns the time from spawn to the poll that saw it.
     *
     * An agent that exits first is given {@link #AFTER_EXIT} more: what it did may reach the observer after it ended
     * (a one-shot's labels on the Node arrive as a watch event, and a native one-shot exits within milliseconds).
     *
     * @throws BenchmarkException when the agent exited and the condition still did not hold {@link #AFTER_EXIT}
     *                            later, or {@code timeout} passes
     */
    Duration await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long exitedAt = 0;
        while (!condition.getAsBoolean()) {
            samplePeak();
            if (!launcher.isAlive() && !condition.getAsBoolean()) {
                if (exitedAt == 0) {
                    exitedAt = System.nanoTime();
                } else if (System.nanoTime() - exitedAt > AFTER_EXIT.toNanos()) {
                    throw new BenchmarkException("the " + role.label() + " exited (status " + launcher.exitValue()
                            + ") before " + what + "; its log: " + log);
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new BenchmarkException("the " + role.label() + " did not reach " + what + " within "
                        + timeout.toSeconds() + " s; its log: " + log);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return elapsed();
    }

    /** Waits for the agent to end by itself, sampling its peak RSS; returns the time from spawn and the peak. */
    Exit awaitExit(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            samplePeak();
            try {
                if (launcher.waitFor(5, TimeUnit.MILLISECONDS)) {
                    return new Exit(launcher.exitValue(), elapsed(), peakKib);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchmarkException("interrupted while waiting for the " + role.label());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new BenchmarkException("the " + role.label() + " did not exit within " + timeout.toSeconds()
                        + " s; its log: " + log);
            }
        }
    }

    record Exit(int status, Duration after, long peakRssKib) {
    }

    /**
     * Keeps the highest {@code VmHWM} seen: a process's own peak can only be read while it lives, so a short one
     * is sampled at every poll from its exec on.
     */
    private void samplePeak() {
        OptionalLong hwm = peakRssKib();
        if (hwm.isPresent()) {
            peakKib = Math.max(peakKib, hwm.getAsLong());
            cpuMillis();
        }
    }

    /** SIGTERM to the agent (as a kubelet stops a container), 15 s, then SIGKILL to everything left. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(15));
    }

    /**
     * SIGTERM to the agent, then {@code grace} for it to exit before SIGKILL to everything left. A JVM recording
     * its AOT configuration writes it on exit, which takes tens of seconds on a loaded machine.
     */
    void stop(Duration grace) {
        if (!launcher.isAlive()) {
            return;
        }
        OptionalLong pid = agentPid();
        if (pid.isPresent()) {
            ProcessHandle.of(pid.getAsLong()).ifPresent(ProcessHandle::destroy);
        } else {
            launcher.destroy();
        }
        try {
            if (!launcher.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                launcher.descendants().forEach(ProcessHandle::destroyForcibly);
                launcher.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }
}
