package dev.kgpu.agent.kubernetes;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;

import static org.assertj.core.api.Assertions.assertThat;

class KubernetesErrorTest {

    @Test
    void anErrorStatusIsARefusalWithTheServersMessage() {
        Status conflict = new StatusBuilder().withCode(409).withMessage("Operation cannot be fulfilled on nodes \"gpu-1\":"
                + " the object has been modified\nplease apply your changes to the latest version").build();

        KubernetesError error = KubernetesError.of(new KubernetesClientException(conflict));

        assertThat(error).isEqualTo(new KubernetesError.Refused(409, "Operation cannot be fulfilled on nodes \"gpu-1\":"
                + " the object has been modified"));
        assertThat(error.describe()).isEqualTo("the API server answered 409: Operation cannot be fulfilled on nodes"
                + " \"gpu-1\": the object has been modified");
        assertThat(error.isTransient()).isFalse();
    }

    @Test
    void withoutAStatusMessageFabric8sOwnMessageSaysWhat() {
        KubernetesError error = KubernetesError.of(new KubernetesClientException("Failure executing: GET at:"
                + " https://10.0.0.1/api/v1/nodes/gpu-1. Message: Service Unavailable.", 503, null));

        assertThat(error.code()).isEqualTo(503);
        assertThat(error.describe()).isEqualTo("the API server answered 503: Failure executing: GET at:"
                + " https://10.0.0.1/api/v1/nodes/gpu-1. Message: Service Unavailable.");
        assertThat(error.isTransient()).isTrue();
    }

    @Test
    void noAnswerIsUnreachableWithTheTransportsReason() {
        ConnectException refused = new ConnectException("Connection refused");

        KubernetesError error = KubernetesError.of(new KubernetesClientException("Operation: [get] for kind: [Node]"
                + " with name: [gpu-1] in namespace: [null] failed.", refused));

        assertThat(error).isEqualTo(new KubernetesError.Unreachable(refused, "Connection refused"));
        assertThat(error.code()).isZero();
        assertThat(error.describe()).isEqualTo("the API server could not be reached: Connection refused");
        assertThat(error.isTransient()).isTrue();
        assertThat(KubernetesError.of(new KubernetesClientException("timed out")).describe())
                .isEqualTo("the API server could not be reached: timed out");
    }
}
