package dev.kgpu.plugin.mps;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.OncePerCause;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.plugin.devices.DeviceSourceException;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One {@link MpsDaemon} kept running: each {@link #check} (its owner's period) asks whether it still runs and answers
 * {@value MpsControlDaemon#HEALTH_COMMAND}; one that does not is logged once and started again with backoff, with the
 * settings and compute modes it was started with ({@link MpsDaemon#restart}); a restart that fails is logged once per
 * cause and tried again; one that succeeds is logged once. Its {@link #problem} says why it does not run meanwhile. The
 * device plugin's daemons ({@link MpsControlDaemon}) and each MPS claim's (the DRA driver's) are watched by this.
 *
 * <p>Thread-safety: not thread-safe; its owner confines it (the supervisor's thread; the claims' MPS lock), and its
 * {@link Timers} must run each restart there too.
 */
public final class WatchedDaemon {

    private static final System.Logger LOG = System.getLogger(WatchedDaemon.class.getName());

    /** Runs a restart after a wait, where the owner confines the daemon; the timer cancels it. */
    @FunctionalInterface
    public interface Timers {
        Supervisor.Timer after(Duration delay, Runnable task);
    }

    /** What the owner hears, on the owner's thread. */
    public interface Listener {
        /** A check found it stopped ({@code why}); a restart is scheduled. */
        default void stopped(String why) {
        }

        /** A restart failed ({@code why}); another is scheduled. */
        default void restartFailed(String why) {
        }

        /** A restart succeeded: it runs again. */
        default void restarted() {
        }
    }

    private final String name;
    private final MpsDaemon mps;
    private final Supplier<ControlProgram> program;
    private final Timers timers;
    private final Listener listener;
    private final Backoff restarts;
    private final OncePerCause restartFailure;
    private Supervisor.Timer restart;
    private String problem;
    private boolean stopped;
    /** Never started by this process (a start failed): the next try starts it afresh rather than again. */
    private boolean fresh;

    /**
     * @param name     whose daemon it is in the log lines ("the MPS control daemon of {@code name}"): a resource, a claim
     * @param program  the control program for a restart, looked up again each time
     *                 ({@link MpsStartException} when it is not there)
     * @param retries  the waits between restarts
     */
    public WatchedDaemon(String name, MpsDaemon mps, Supplier<ControlProgram> program, Backoff.Policy retries,
                         Timers timers, Listener listener) {
        this.name = Objects.requireNonNull(name, "name");
        this.mps = Objects.requireNonNull(mps, "mps");
        this.program = Objects.requireNonNull(program, "program");
        this.timers = Objects.requireNonNull(timers, "timers");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.restarts = new Backoff(retries);
        this.restartFailure = new OncePerCause(LOG, "the MPS control daemon of " + name + " runs again");
    }

    public MpsDaemon mps() {
        return mps;
    }

    public boolean running() {
        return mps.running();
    }

    /** Why it does not run now (it stopped, it cannot start again), one line; empty while it runs. */
    public Optional<String> problem() {
        return mps.running() ? Optional.empty() : Optional.ofNullable(problem);
    }

    /** Still running and answering? If not: logged once, started again with backoff. Nothing while a restart waits. */
    public void check() {
        if (stopped || !mps.running()) {
            return;
        }
        Optional<String> dead = mps.check();
        if (dead.isEmpty()) {
            return;
        }
        problem = "the MPS control daemon of " + name + " stopped (" + dead.get() + ")";
        LOG.log(System.Logger.Level.WARNING, "the MPS control daemon of {0} stopped ({1}); starting it again with backoff",
                name, dead.get());
        listener.stopped(dead.get());
        scheduleRestart();
    }

    /**
     * It could not be started ({@code cause}, which its owner has logged): it is started afresh with backoff
     * ({@link MpsDaemon#start(ControlProgram)}, its compute modes noted again), and {@link #problem} says why meanwhile.
     */
    public void startAgainLater(String cause) {
        fresh = true;
        problem = "the MPS control daemon of " + name + " cannot start again: " + cause;
        restartFailure.occurred(System.Logger.Level.DEBUG, cause, "the MPS control daemon of {0} cannot start again: {1}"
                + " (retrying with backoff)", name, cause);
        scheduleRestart();
    }

    private void scheduleRestart() {
        cancelRestart();
        restart = timers.after(restarts.next(), () -> {
            restart = null;
            restartNow();
        });
    }

    private void restartNow() {
        if (stopped) {
            return;
        }
        try {
            if (fresh) {
                mps.start(program.get());
                fresh = false;
            } else {
                mps.restart(program.get());
            }
        } catch (MpsStartException | DeviceSourceException e) {
            problem = "the MPS control daemon of " + name + " cannot start again: " + e.getMessage();
            restartFailure.occurred(System.Logger.Level.ERROR, e.getMessage(),
                    "the MPS control daemon of {0} cannot start again: {1} (retrying with backoff)", name, e.getMessage());
            listener.restartFailed(e.getMessage());
            scheduleRestart();
            return;
        }
        restarts.reset();
        problem = null;
        if (!restartFailure.cleared()) {
            LOG.log(System.Logger.Level.INFO, "the MPS control daemon of {0} runs again (pid {1})", name,
                    mps.pid().isPresent() ? Long.toString(mps.pid().getAsLong()) : "unknown");
        }
        listener.restarted();
    }

    /** No more checks or restarts; the owner stops or removes the daemon itself ({@link #mps}). */
    public void stopWatching() {
        stopped = true;
        cancelRestart();
    }

    private void cancelRestart() {
        if (restart != null) {
            restart.cancel();
            restart = null;
        }
    }
}
