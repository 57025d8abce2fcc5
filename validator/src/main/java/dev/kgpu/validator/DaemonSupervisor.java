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
 * {@code *-ready} files, as NVIDIA's preStop hook does.
 */
public final class DaemonSupervisor implements AutoCloseable {

    private enum Event { REVALIDATE, STOP }

    private static final System.Logger LOG = System.getLogger(DaemonSupervisor.class.getName());

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final ValidationPass pass;
    private final StatusFiles statusFiles;
    private final ValidationState state;
    private final Duration interval;
    private final Thread thread;

    public DaemonSupervisor(ValidationPass pass, StatusFiles statusFiles, ValidationState state, Duration interval) {
        this.pass = pass;
        this.statusFiles = statusFiles;
        this.state = state;
        this.interval = interval;
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
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "validation supervisor stopped by an unexpected error", e);
        }
    }

    /** Stops the supervisor and removes the {@code *-ready} files of the validated components. */
    @Override
    public void close() throws InterruptedException {
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
