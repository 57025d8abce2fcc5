package dev.kgpu.validator;

import dev.kgpu.validator.core.StatusFiles;
import dev.kgpu.validator.core.ValidationPass;
import dev.kgpu.validator.core.Verdict;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Daemon mode's one supervisor thread. It takes lifecycle events from one queue: a pass runs at start,
 * on {@link #revalidateNow()} and whenever {@code interval} passes without an event; {@link #close()}
 * stops it (interrupting a pass in flight, whose sample pod is still deleted) and removes the
 * {@code *-ready} files, as NVIDIA's preStop hook does. Anything unexpected thrown by a pass, an {@link Error}
 * included, stops the supervisor and calls {@code failed}, and the process exits 1 rather than stay up with
 * readiness frozen at the last pass.
 */
public final class DaemonSupervisor implements AutoCloseable {

    private enum Event { REVALIDATE, STOP }

    private static final System.Logger LOG = System.getLogger(DaemonSupervisor.class.getName());

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final ValidationPass pass;
    private final StatusFiles statusFiles;
    private final ValidationState state;
    private final Duration interval;
    private final Runnable failed;
    private final Thread thread;
    private volatile boolean failure;
    private boolean closed;

    /**
     * @param failed called once, on the supervisor thread, when a pass threw something unexpected: the caller
     *               ends the process ({@code Quarkus.asyncExit(1)}); {@link #exitStatus()} is then 1
     */
    public DaemonSupervisor(ValidationPass pass, StatusFiles statusFiles, ValidationState state, Duration interval,
                            Runnable failed) {
        this.pass = pass;
        this.statusFiles = statusFiles;
        this.state = state;
        this.interval = interval;
        this.failed = failed;
        this.thread = Thread.ofPlatform().name("validator-supervisor").unstarted(this::loop);
    }

    public void start() {
        events.add(Event.REVALIDATE);
        thread.start();
    }

    /** Asks for a pass now (after the one in flight, if any). */
    public void revalidateNow() {
        events.add(Event.REVALIDATE);
    }

    private void loop() {
        boolean first = true;
        try {
            while (true) {
                Event event = events.poll(interval.toMillis(), TimeUnit.MILLISECONDS);
                if (event == Event.STOP) {
                    return;
                }
                List<Verdict> verdicts = pass.run(first ? ValidationPass.FilePolicy.REMOVE_FIRST
                        : ValidationPass.FilePolicy.REPLACE_ON_RESULT);
                first = false;
                state.record(verdicts);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            failure = true;
            LOG.log(System.Logger.Level.ERROR, "validation supervisor stopped by an unexpected error", e);
            failed.run();
        }
    }

    /** 0, or 1 once the supervisor stopped on an unexpected error. */
    public int exitStatus() {
        return failure ? 1 : 0;
    }

    /**
     * Stops the supervisor and removes the {@code *-ready} files of the validated components. Called at
     * shutdown (SIGTERM) and by the entry point; a second call waits for the first to finish, then returns.
     */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        events.add(Event.STOP);
        thread.interrupt();
        thread.join(Duration.ofSeconds(30));
        for (var component : pass.components()) {
            try {
                statusFiles.remove(component);
            } catch (java.io.UncheckedIOException e) {
                LOG.log(System.Logger.Level.ERROR, e.getMessage());
            }
        }
        LOG.log(System.Logger.Level.INFO, "removed the *-ready files of {0}", pass.components());
    }
}
