package dev.kgpu.validator;

import dev.kgpu.agent.Supervisor;
import dev.kgpu.agent.Supervisor.Control;
import dev.kgpu.agent.Supervisor.Ending;
import dev.kgpu.validator.core.StatusFiles;
import dev.kgpu.validator.core.ValidationPass;
import dev.kgpu.validator.core.Verdict;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Daemon mode's lifecycle, run by the agent kit's {@link Supervisor} on its one thread: a pass runs at start, on
 * {@link Revalidate} (posted by whoever asks for one) and whenever {@code interval} passes without one; a stop
 * interrupts a pass in flight (whose sample pod is still deleted) and removes the {@code *-ready} files, as
 * NVIDIA's preStop hook does. Anything unexpected thrown by a pass, an {@link Error} included, stops the
 * supervisor with exit status 1, and the process exits 1 rather than stay up with readiness frozen at the last
 * pass.
 */
public final class DaemonHandler implements Supervisor.Handler<Duration, DaemonHandler.Revalidate> {

    /** The supervisor thread's name. */
    public static final String THREAD = "validator-supervisor";

    private static final System.Logger LOG = System.getLogger(DaemonHandler.class.getName());

    /** Asks for a pass now (after the one in flight, if any). */
    public enum Revalidate { NOW }

    private final ValidationPass pass;
    private final StatusFiles statusFiles;
    private final ValidationState state;
    private Control<Revalidate> control;
    private Duration interval;
    private Supervisor.Timer next;
    private boolean first = true;

    public DaemonHandler(ValidationPass pass, StatusFiles statusFiles, ValidationState state) {
        this.pass = Objects.requireNonNull(pass, "pass");
        this.statusFiles = Objects.requireNonNull(statusFiles, "statusFiles");
        this.state = Objects.requireNonNull(state, "state");
    }

    /** Validates at once, then every {@code interval}; stopping interrupts a pass in flight. */
    public static Supervisor<Duration, Revalidate> start(DaemonHandler handler, Duration interval) {
        return Supervisor.builder(THREAD, handler).interruptOnStop().start(interval);
    }

    @Override
    public void start(Duration revalidateInterval, Control<Revalidate> control) {
        this.control = control;
        this.interval = revalidateInterval;
        control.post(Revalidate.NOW); // not here: start returns at once, and a first pass may wait long
    }

    @Override
    public void on(Revalidate event) {
        validate();
    }

    private void validate() {
        if (next != null) {
            next.cancel();
        }
        List<Verdict> verdicts;
        try {
            verdicts = pass.run(first ? ValidationPass.FilePolicy.REMOVE_FIRST
                    : ValidationPass.FilePolicy.REPLACE_ON_RESULT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // a stop: the engine ends the run
            return;
        }
        first = false;
        state.record(verdicts);
        next = control.after(interval, Revalidate.NOW);
    }

    /** Removes the {@code *-ready} files of the validated components, also after an unexpected error. */
    @Override
    public void stop(Ending why) {
        for (var component : pass.components()) {
            try {
                statusFiles.remove(component);
            } catch (java.io.UncheckedIOException e) {
                LOG.log(Level.ERROR, e.getMessage());
            }
        }
        LOG.log(Level.INFO, "removed the *-ready files of {0}", pass.components());
    }
}
