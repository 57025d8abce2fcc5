package dev.kgpu.validator.core;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class PodDiagnosisTest {

    record Case(String description, PodState pod, boolean failed, List<String> events, Layer layer, String reason) {
        Case(String description, PodState pod, boolean failed, Layer layer, String reason) {
            this(description, pod, failed, List.of(), layer, reason);
        }

        @Override
        public String toString() {
            return description;
        }
    }


    private static PodState pod(String phase, String node, PodState.Condition scheduled, String reason,
                                PodState.ContainerState... containers) {
        return new PodState("p", phase, Optional.ofNullable(node), Optional.ofNullable(scheduled),
                Optional.ofNullable(reason), Optional.ofNullable(reason == null ? null : "Node didn't have enough"),
                List.of(containers));
    }

    static Stream<Case> cases() {
        var unschedulable = new PodState.Condition("False", "Unschedulable",
                "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
        var exited = new PodState.ContainerState("c", PodState.ContainerState.State.TERMINATED, "Error", "", 1);
        var creating = new PodState.ContainerState("c", PodState.ContainerState.State.WAITING, "ContainerCreating", "", 0);
        var pulling = new PodState.ContainerState("c", PodState.ContainerState.State.WAITING, "ImagePullBackOff",
                "Back-off pulling image \"x\"", 0);
        return Stream.of(
                new Case("unschedulable pod is a scheduling failure", pod("Pending", null, unschedulable, null),
                        false, Layer.SCHEDULING,
                        "pod p stayed Pending for 300 s: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu."),
                new Case("never looked at by a scheduler", pod("Pending", null, null, null), false, Layer.SCHEDULING,
                        "pod p stayed Pending for 300 s: it was never scheduled (is the scheduler running?)"),
                new Case("bound but the image does not pull", pod("Pending", "n1", null, null, pulling), false,
                        Layer.RUNTIME, "pod p stayed Pending on n1 for 300 s: container c waiting: ImagePullBackOff:"
                        + " Back-off pulling image \"x\""),
                new Case("no sandbox: the events say why", pod("Pending", "n1", null, null, creating), false,
                        List.of("FailedMount: a", "FailedCreatePodSandBox: no runtime for \"nvidia\" is configured"),
                        Layer.RUNTIME, "pod p stayed Pending on n1 for 300 s: container c waiting: ContainerCreating;"
                        + " events: FailedMount: a; FailedCreatePodSandBox: no runtime for \"nvidia\" is configured"),
                new Case("still running", pod("Running", "n1", null, null), false, Layer.RUNTIME,
                        "pod p was still Running on n1 after 300 s; the CUDA sample did not finish (GPU hung?)"),
                new Case("container exited non-zero", pod("Failed", "n1", null, null, exited), true, Layer.RUNTIME,
                        "pod p failed on n1: container c exited 1 (Error); last log line: 'boom'"),
                new Case("kubelet admission refused the GPU", pod("Failed", "n1", null, "OutOfnvidia.com/gpu"), true,
                        Layer.DEVICE_PLUGIN,
                        "the kubelet on n1 rejected pod p: OutOfnvidia.com/gpu: Node didn't have enough"));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void diagnosis(Case c) {
        ComponentFailure failure = c.failed() ? PodDiagnosis.failed(c.pod(), "boom") : PodDiagnosis.stuck(c.pod(), 300, c.events());

        assertThat(failure.layer()).isEqualTo(c.layer());
        assertThat(failure.reason()).isEqualTo(c.reason());
    }
}
