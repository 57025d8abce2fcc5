package dev.kgpu.plugin.app;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import dev.kgpu.agent.testing.WatchErrors;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.kubernetes.client.KubernetesResources;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kinds the Kubernetes client extension registers are the plugin's own list, not the ~200 every model jar lists
 * (application.properties, "Kubernetes model kinds"): each kind registered costs its builders and every type they
 * name in the native executable, and is loaded at start in the JVM.
 */
@QuarkusTest
class KubernetesKindsTest {

    @Inject
    @KubernetesResources
    @SuppressWarnings("rawtypes")
    Class[] kinds;

    @Inject
    KubernetesClient client;

    @Test
    void onlyTheKindsThePluginReadsAreRegistered() {
        assertThat(kinds).containsExactlyInAnyOrder(Status.class, Node.class, ResourceSlice.class, ResourceClaim.class);
    }

    @Test
    void aWatchThatExpiredIsReadAsAStatusSoTheClientRelists() {
        assertThat(WatchErrors.goneAsReadBy(client)).isInstanceOfSatisfying(Status.class,
                status -> assertThat(status.getCode()).isEqualTo(410));
    }
}
