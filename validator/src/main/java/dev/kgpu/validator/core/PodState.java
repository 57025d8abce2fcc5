package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the API server says about a pod: enough to tell a scheduling failure from a runtime one.
 *
 * @param phase     {@code Pending}, {@code Running}, {@code Succeeded}, {@code Failed} or {@code Unknown}
 * @param nodeName  the node it is bound to, empty while unscheduled
 * @param scheduled the {@code PodScheduled} condition, when the scheduler has set one
 * @param reason    the pod-level reason, e.g. {@code OutOfnvidia.com/gpu} when the kubelet rejected it
 * @param message   the pod-level message
 */
public record PodState(String name, String phase, Optional<String> nodeName, Optional<Condition> scheduled,
                       Optional<String> reason, Optional<String> message, List<ContainerState> containers) {

    public PodState {
        Objects.requireNonNull(name, "name");
        phase = phase == null || phase.isBlank() ? "Pending" : phase;
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(scheduled, "scheduled");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
        containers = List.copyOf(containers);
    }

    /** A pod condition. */
    public record Condition(String status, String reason, String message) {
        public Condition {
            status = status == null ? "" : status;
            reason = reason == null ? "" : reason;
            message = message == null ? "" : message;
        }

        public boolean isTrue() {
            return status.equals("True");
        }
    }

    /** One container's state. */
    public record ContainerState(String name, State state, String reason, String message, int exitCode) {
        public ContainerState {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(state, "state");
            reason = reason == null ? "" : reason;
            message = message == null ? "" : message;
        }

        public enum State { WAITING, RUNNING, TERMINATED, UNKNOWN }
    }
}
