package dev.kgpu.simulator.agents;


import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One running agent process: when it was spawned, where it logs, how to ask whether it is ready, and how
 * to stop it as a kubelet stops a container (SIGTERM, a grace period, then SIGKILL).
 *
 * <p>Thread-safety: {@link #stop(Duration)} may be called from a shutdown hook while another thread waits
 * in {@link #awaitReady}; the wait then fails with {@link SimulatorException.AgentExited}.
 */
public final class AgentProcess {

    private static final Duration POLL = Duration.ofMillis(20);

    private final Agent agent;
    private final Process process;
    private final long spawnedAtNanos;
    private final int port;
    private final Path log;
    private final AotCache aotCache;
    private volatile boolean stopping;

    AgentProcess(Agent agent, Process process, long spawnedAtNanos, int port, Path log, AotCache aotCache) {
        this.agent = agent;
        this.process = process;
        this.spawnedAtNanos = spawnedAtNanos;
        this.port = port;
        this.log = log;
        this.aotCache = aotCache;
    }

    public Agent agent() {
        return agent;
    }

    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    public Path log() {
        return log;
    }

    /** Whether the JVM was given an AOT cache, and whether it said it could not use it. */
    public AotCache aotCache() {
        return aotCache.checkedAgainst(log);
    }

    /** Runs {@code action} if the process ends before {@link #stop} was called. */
    public void onUnexpectedExit(Runnable action) {
        process.onExit().thenRun(() -> {
            if (!stopping) {
                action.run();
            }
        });
    }

    /** The exit status, once the process has ended. */
    public Optional<Integer> exitStatus() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    public boolean alive() {
        return process.isAlive();
    }

    public OptionalLong rssKib() {
        return ProcStatus.rssKib(process.pid());
    }

    /** Time since the process was spawned. */
    public Duration sinceSpawn() {
        return Duration.ofNanos(System.nanoTime() - spawnedAtNanos);
    }

    /**
     * Polls {@code /q/health/ready} until it answers 200 (UP) and returns the time from spawn to that answer.
     *
     * @throws SimulatorException.AgentExited when the process ends first
     * @throws SimulatorException.TimedOut    after {@code timeout}
     */
    public Duration awaitReady(HttpClient http, Duration timeout) {
        URI uri = URI.create("http://127.0.0.1:" + port + "/q/health/ready");
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build();
        String[] last = {"no answer yet"};
        BooleanSupplier ready = () -> {
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                last[0] = "HTTP " + response.statusCode() + " " + response.body().replaceAll("\\s+", " ");
                return response.statusCode() == 200;
            } catch (IOException e) {
                last[0] = "no answer (" + e.getClass().getSimpleName() + ")";
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SimulatorException.AgentExited("interrupted while waiting for the " + agent.id());
            }
        };
        awaitWhileAlive(ready, timeout, () -> uri + " answered " + last[0]);
        return sinceSpawn();
    }

    /**
     * Waits until {@code condition} holds, failing early when the process ends.
     *
     * @param lastState what to say about the condition when it times out
     */
    public void awaitWhileAlive(BooleanSupplier condition, Duration timeout, java.util.function.Supplier<String> lastState) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (!process.isAlive()) {
                throw exited();
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new SimulatorException.AgentExited("stopped waiting for the " + agent.id());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new SimulatorException.TimedOut("the " + agent.id() + " was not ready after " + timeout.toSeconds()
                        + " s: " + lastState.get() + "; see " + log);
            }
            LockSupport.parkNanos(POLL.toNanos());
        }
    }

    /**
     * Waits for the process to exit, sampling its peak RSS meanwhile.
     *
     * @return the exit status and the last peak RSS read (KiB) before it ended
     */
    public Exit awaitExit(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long peak = 0;
        while (true) {
            OptionalLong hwm = ProcStatus.peakRssKib(process.pid());
            if (hwm.isPresent()) {
                peak = Math.max(peak, hwm.getAsLong());
            }
            try {
                if (process.waitFor(POLL.toMillis(), TimeUnit.MILLISECONDS)) {
                    return new Exit(process.exitValue(), sinceSpawn(), peak);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SimulatorException.AgentExited("interrupted while waiting for the " + agent.id() + " to finish");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new SimulatorException.TimedOut("the " + agent.id() + " did not finish within " + timeout.toSeconds()
                        + " s; see " + log);
            }
        }
    }

    /** How a process ended. */
    public record Exit(int status, Duration after, long peakRssKib) {
    }

    private SimulatorException exited() {
        if (stopping) {
            return new SimulatorException.AgentExited("the " + agent.id() + " was stopped");
        }
        return new SimulatorException.AgentExited("the " + agent.id() + " exited with status " + process.exitValue()
                + " before it was ready; last lines of " + log + ":\n" + String.join("\n", logTail(15)));
    }

    /** The last {@code lines} lines of the agent's log. */
    public List<String> logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return all.subList(Math.max(0, all.size() - lines), all.size()).stream().map(l -> "    " + l).toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return List.of("    (log unreadable: " + e.getMessage() + ")");
        }
    }

    /**
     * Sends SIGTERM, waits up to {@code grace}, then SIGKILL. Returns the exit status, or empty when it had to be
     * killed.
     */
    public Optional<Integer> stop(Duration grace) {
        stopping = true;
        if (!process.isAlive()) {
            return Optional.of(process.exitValue());
        }
        process.destroy();
        try {
            if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                return Optional.of(process.exitValue());
            }
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        return Optional.empty();
    }
}
