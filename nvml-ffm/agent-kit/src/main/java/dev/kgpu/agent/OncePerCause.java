package dev.kgpu.agent;

import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.Optional;

/**
 * One kind of trouble an agent retries through (NVML missing, the API server down, a failing collection), logged
 * once per cause rather than once per retry: a node without a driver for an hour is one line, not one per try. The
 * first occurrence of a cause is logged at the level given, a repeat of the same cause at DEBUG, a different cause
 * at the level given again, and when the trouble clears, one INFO line says so.
 *
 * <pre>{@code
 * private final OncePerCause nvml = new OncePerCause(LOG, "NVML is available again; collecting");
 * ...
 * nvml.occurred(Level.ERROR, problem, "NVML is not available ({0}); retrying with backoff", problem);
 * ...
 * nvml.cleared();   // logs "NVML is available again; collecting" once, if there was a problem
 * }</pre>
 *
 * <p>The message is a {@link java.text.MessageFormat} pattern, as in every {@code LOG.log} call, and each module's
 * LogPatternsTest checks it like one. Not thread-safe: the agent's supervisor thread owns it.
 */
public final class OncePerCause {

    private final System.Logger log;
    private final String again;
    private String cause;

    /**
     * @param log   the agent's logger (the class whose trouble it is)
     * @param again the INFO line when the trouble clears: {@code the labelling pass succeeds again}
     */
    public OncePerCause(System.Logger log, String again) {
        this.log = Objects.requireNonNull(log, "log");
        this.again = Objects.requireNonNull(again, "again");
    }

    /**
     * The trouble happened (again) because of {@code cause}: logs {@code pattern} with {@code params} at
     * {@code level} when the cause is new, at DEBUG when it is the one logged last.
     *
     * @return whether this was logged at {@code level}: the cause is new
     */
    public boolean occurred(Level level, String cause, String pattern, Object... params) {
        Objects.requireNonNull(cause, "cause");
        boolean first = !cause.equals(this.cause);
        this.cause = cause;
        log.log(first ? level : Level.DEBUG, pattern, params);
        return first;
    }

    /**
     * The trouble is over: logs the {@code again} line at INFO when there was trouble.
     *
     * @return whether there was
     */
    public boolean cleared() {
        if (cause == null) {
            return false;
        }
        cause = null;
        log.log(Level.INFO, again);
        return true;
    }

    /** The cause logged last, while the trouble lasts. */
    public Optional<String> cause() {
        return Optional.ofNullable(cause);
    }
}
