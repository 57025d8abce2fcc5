package dev.kgpu.plugin.app;

import dev.kgpu.plugin.dra.DraStatus;
import dev.kgpu.plugin.dra.DraStatus.AllocationSource;
import dev.kgpu.plugin.node.NodeStatus;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Readiness shows where the node learns what the kubelet's device manager allocated, and is DOWN only without it. */
class PluginHealthChecksTest {

    static final String FALLBACK = "the kubelet's PodResources API cannot be read (...): reading what its device manager"
            + " allocated from its checkpoint /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint, ...";
    static final String NEITHER = "cannot read what the kubelet's device manager allocated: ...";

    static NodeStatus node(AllocationSource source, boolean devicePluginBeside, List<String> problems) {
        DraStatus dra = new DraStatus(true, true, true, Optional.of(3L), 8, 0, true, source, devicePluginBeside, List.of(), problems);
        return new NodeStatus(true, true, List.of(), List.of(dra));
    }

    static HealthCheckResponse readiness(NodeStatus status) {
        return PluginHealthChecks.describe("registered with the kubelet", status.ready(), status);
    }

    @Test
    void fedByPodResourcesReadinessIsUpAndNamesTheSource() {
        HealthCheckResponse ready = readiness(node(AllocationSource.POD_RESOURCES, true, List.of()));

        assertThat(ready.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(ready.getData()).hasValueSatisfying(data -> assertThat(data)
                .containsEntry("draKubeletAllocations", "podresources").doesNotContainKey("problem"));
    }

    @Test
    void fedByTheCheckpointReadinessIsUpWithTheReason() {
        HealthCheckResponse ready = readiness(node(AllocationSource.DEVICE_MANAGER_CHECKPOINT, true, List.of(FALLBACK)));

        assertThat(ready.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(ready.getData()).hasValueSatisfying(data -> assertThat(data)
                .containsEntry("draKubeletAllocations", "device-manager checkpoint").containsEntry("problem", FALLBACK));
    }

    @Test
    void withNeitherSourceBesideTheDevicePluginReadinessIsDownWithTheReason() {
        HealthCheckResponse ready = readiness(node(AllocationSource.NONE, true, List.of(NEITHER)));

        assertThat(ready.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(ready.getData()).hasValueSatisfying(data -> assertThat(data)
                .containsEntry("draKubeletAllocations", "none").containsEntry("problem", NEITHER));
    }

    @Test
    void theDraDriverAloneIsReadyWithoutEither() {
        HealthCheckResponse ready = readiness(node(AllocationSource.NONE, false, List.of(NEITHER)));

        assertThat(ready.getStatus()).as("no device plugin of kgpu's to double-hand-out with")
                .isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(ready.getData()).hasValueSatisfying(data -> assertThat(data).containsEntry("draKubeletAllocations", "none"));
    }
}
