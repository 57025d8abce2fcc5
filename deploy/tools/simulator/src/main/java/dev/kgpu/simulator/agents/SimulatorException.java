package dev.kgpu.simulator.agents;

/**
 * Why the simulated node could not come up. Every message says what to do about it. Only the entry point
 * turns one into an exit status.
 */
public sealed class SimulatorException extends RuntimeException {

    SimulatorException(String message) {
        super(message);
    }

    SimulatorException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Something the simulator needs was never built. */
    public static final class NotBuilt extends SimulatorException {
        public NotBuilt(String message) {
            super(message);
        }
    }

    /** A port an agent would listen on is taken. */
    public static final class PortInUse extends SimulatorException {
        public PortInUse(String message) {
            super(message);
        }
    }

    /** An agent exited before it was ready. */
    public static final class AgentExited extends SimulatorException {
        public AgentExited(String message) {
            super(message);
        }
    }

    /** A condition did not hold within its timeout. */
    public static final class TimedOut extends SimulatorException {
        public TimedOut(String message) {
            super(message);
        }
    }

    /** The work directory or a server could not be set up. */
    public static final class SetupFailed extends SimulatorException {
        public SetupFailed(String message) {
            super(message);
        }

        public SetupFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
