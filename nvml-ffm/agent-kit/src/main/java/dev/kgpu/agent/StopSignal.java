package dev.kgpu.agent;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM, with which the kubelet stops a container. A JVM left to itself answers it by running its shutdown
 * hooks and exiting with status 143 (128 + 15), and a native image's Quarkus does the same; NVIDIA's agents
 * stop, clean up and exit 0. With the signal relayed, the agent hears it like any other reason to stop: it stops
 * (sockets removed, CDI specs and status files cleaned up, as on every stop) and its entry point returns its own
 * exit status, 0 after a clean stop. The {@link Supervisor} installs it for an agent launched by its entry point
 * ({@link Launch#main}):
 *
 * <pre>{@code
 * StopSignal.relayTo(supervisor::stopForExit);   // SIGTERM ends supervisor.awaitExit() in the entry point
 * }</pre>
 *
 * <p>The action runs on the signal-dispatch thread, so it should only ask for the stop and return. A later call
 * replaces the earlier action. SIGINT (Ctrl-C) keeps the default behaviour.
 */
public final class StopSignal {

    private static final System.Logger LOG = System.getLogger(StopSignal.class.getName());

    private StopSignal() {
    }

    /**
     * Runs {@code action} on every SIGTERM from now on.
     *
     * @return false when this process cannot handle SIGTERM (reserved with {@code -Xrs}, or ignored since it
     *         started); a warning is logged, and SIGTERM keeps the JVM's behaviour: shutdown hooks, status 143
     */
    public static boolean relayTo(Runnable action) {
        try {
            SignalHandler before = Signal.handle(new Signal("TERM"), signal -> action.run());
            if (before == SignalHandler.SIG_IGN) {
                // started with SIGTERM ignored: keep ignoring it, as the process was asked to
                Signal.handle(new Signal("TERM"), SignalHandler.SIG_IGN);
                LOG.log(System.Logger.Level.WARNING, "SIGTERM is ignored by this process; stop it with SIGKILL");
                return false;
            }
            return true;
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "SIGTERM cannot be handled here ({0}); it ends the process with status 143",
                    e.getMessage());
            return false;
        }
    }
}
