package dev.kgpu.plugin.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the node runtime has achieved, for health checks and tests: its own state and each front-end's. Immutable.
 *
 * @param running         the node's thread runs
 * @param devicesReadable the driver answered the last time the node (re)started serving
 * @param problems        what keeps the node from serving anything, now
 * @param frontEnds       each front-end's status, in the order they run
 */
public record NodeStatus(boolean running, boolean devicesReadable, List<Problem> problems, List<FrontEndStatus> frontEnds) {

    public static final NodeStatus STARTING = new NodeStatus(false, false, List.of(new Problem.Starting()), List.of());

    public NodeStatus {
        problems = List.copyOf(problems);
        frontEnds = List.copyOf(frontEnds);
    }

    /** Liveness: the node's thread runs and every front-end's servers run. */
    public boolean live() {
        return running && frontEnds.stream().allMatch(FrontEndStatus::live);
    }

    /** Readiness: the devices were read and every front-end is ready. */
    public boolean ready() {
        return running && devicesReadable && frontEnds.stream().allMatch(FrontEndStatus::ready);
    }

    /** The status of the front-end named {@code name}, when it runs. */
    public Optional<FrontEndStatus> frontEnd(String name) {
        return frontEnds.stream().filter(f -> f.frontEnd().equals(name)).findFirst();
    }

    /** Every problem in words: the node's, then each front-end's. */
    public List<String> allProblems() {
        List<String> all = new ArrayList<>(problems.stream().map(Problem::message).toList());
        frontEnds.forEach(f -> all.addAll(f.problems()));
        return all;
    }

    /** Something that keeps the node from serving; {@link #message()} says it in words. */
    public sealed interface Problem {

        String message();

        /** The node has not started serving yet. */
        record Starting() implements Problem {
            @Override
            public String message() {
                return "starting";
            }
        }

        /** The node stopped (SIGTERM): nothing is served. */
        record Stopped() implements Problem {
            @Override
            public String message() {
                return "stopped";
            }
        }

        /** The driver did not answer: nothing is served. */
        record DevicesUnreadable(String reason) implements Problem {
            @Override
            public String message() {
                return reason;
            }
        }

        /** The configuration cannot serve this node's devices (the node gives up). */
        record Unservable(String reason) implements Problem {
            @Override
            public String message() {
                return reason;
            }
        }

        /** SIGHUP brought settings the node refused; it runs on with the ones it had. */
        record ReloadRejected(String reason) implements Problem {
            @Override
            public String message() {
                return "reload rejected: " + reason;
            }
        }
    }
}
