package dev.kgpu.agent;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP, which asks an agent to reload its configuration (NVIDIA's config-manager sidecar sends it after
 * switching the config file). SIGTERM is {@link StopSignal}'s; SIGINT stays with the JVM and Quarkus.
 *
 * <pre>{@code
 * HangupSignal.relayTo(supervisor::reload);   // the supervisor reloads on its own thread
 * }</pre>
 *
 * <p>The action runs on the JVM's signal-dispatch thread, so it should only hand the event to the agent's
 * supervisor (put it on its queue) and return. A later call replaces the earlier action: one process has
 * one reload path.
 */
public final class HangupSignal {

    private static final System.Logger LOG = System.getLogger(HangupSignal.class.getName());

    private HangupSignal() {
    }

    /**
     * Runs {@code action} on every SIGHUP from now on.
     *
     * @return false when this JVM cannot handle SIGHUP (it is reserved, e.g. with {@code -Xrs}, or the process
     *         started with it ignored, e.g. under {@code nohup}); a warning
     *         is logged and the agent runs on without reloading on SIGHUP
     */
    public static boolean relayTo(Runnable action) {
        try {
            SignalHandler before = Signal.handle(new Signal("HUP"), signal -> action.run());
            if (before == SignalHandler.SIG_IGN) {
                // the process started with SIGHUP ignored (nohup): the JVM then installs no handler for it
                LOG.log(System.Logger.Level.WARNING, "SIGHUP is ignored by this process (started under nohup?);"
                        + " reload by restarting the agent");
                return false;
            }
            return true;
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "SIGHUP cannot be handled here ({0}); reload by restarting the agent",
                    e.getMessage());
            return false;
        }
    }
}
