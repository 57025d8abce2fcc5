package dev.kgpu.validator.core;

import java.util.List;
import java.util.stream.Collectors;

/** Turns a pod's status into the failure a user can act on: scheduling, device plugin or runtime. */
final class PodDiagnosis {

    private PodDiagnosis() {
    }

    /** The pod reached phase Failed. */
    static ComponentFailure failed(PodState pod, String lastLogLine) {
        String podReason = pod.reason().orElse("");
        if (podReason.startsWith("OutOf") || podReason.equals("UnexpectedAdmissionError")) {
            return new ComponentFailure(Layer.DEVICE_PLUGIN, "the kubelet on " + pod.nodeName().orElse("the node")
                    + " rejected pod " + pod.name() + ": " + podReason + ": " + pod.message().orElse(""));
        }
        StringBuilder reason = new StringBuilder("pod " + pod.name() + " failed");
        pod.nodeName().ifPresent(node -> reason.append(" on ").append(node));
        String containers = pod.containers().stream()
                .filter(c -> c.state() == PodState.ContainerState.State.TERMINATED && c.exitCode() != 0)
                .map(c -> "container " + c.name() + " exited " + c.exitCode()
                        + (c.reason().isEmpty() ? "" : " (" + c.reason() + ")")
                        + (c.message().isEmpty() ? "" : ": " + c.message()))
                .collect(Collectors.joining("; "));
        if (!containers.isEmpty()) {
            reason.append(": ").append(containers);
        } else if (!podReason.isEmpty()) {
            reason.append(": ").append(podReason).append(pod.message().map(m -> ": " + m).orElse(""));
        }
        if (!lastLogLine.isEmpty()) {
            reason.append("; last log line: '").append(lastLogLine).append('\'');
        }
        return new ComponentFailure(Layer.RUNTIME, reason.toString());
    }

    /** The wait ran out before the pod finished. */
    static ComponentFailure stuck(PodState pod, long waitedSeconds, List<String> warningEvents) {
        String events = warningEvents.isEmpty() ? ""
                : "; events: " + String.join("; ", warningEvents.subList(Math.max(0, warningEvents.size() - 3),
                warningEvents.size()));
        String name = pod.name();
        if (pod.nodeName().isEmpty()) {
            String why = pod.scheduled()
                    .filter(c -> !c.isTrue() && !c.message().isEmpty())
                    .map(PodState.Condition::message)
                    .orElse(warningEvents.isEmpty() ? "it was never scheduled (is the scheduler running?)"
                            : "it was never scheduled");
            return new ComponentFailure(Layer.SCHEDULING,
                    "pod " + name + " stayed Pending for " + waitedSeconds + " s: " + why + events);
        }
        String node = pod.nodeName().get();
        List<String> waiting = pod.containers().stream()
                .filter(c -> c.state() == PodState.ContainerState.State.WAITING && !c.reason().isEmpty())
                .map(c -> "container " + c.name() + " waiting: " + c.reason()
                        + (c.message().isEmpty() ? "" : ": " + c.message()))
                .toList();
        return switch (pod.phase()) {
            case "Pending" -> new ComponentFailure(Layer.RUNTIME, "pod " + name + " stayed Pending on " + node
                    + " for " + waitedSeconds + " s"
                    + (waiting.isEmpty() ? " (containers never started)" : ": " + String.join("; ", waiting))
                    + events);
            case "Running" -> new ComponentFailure(Layer.RUNTIME, "pod " + name + " was still Running on " + node
                    + " after " + waitedSeconds + " s; the CUDA sample did not finish (GPU hung?)" + events);
            default -> new ComponentFailure(Layer.RUNTIME, "pod " + name + " on " + node + " was "
                    + pod.phase() + " after " + waitedSeconds + " s"
                    + pod.message().map(m -> ": " + m).orElse("") + events);
        };
    }

    /** The last non-blank line of a log, or empty. */
    static String lastLine(String log) {
        List<String> lines = log.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        return lines.isEmpty() ? "" : lines.getLast();
    }
}
