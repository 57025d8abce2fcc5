package dev.kgpu.sim.scheduler;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Instant;

/** Events about a pod, as {@code kubectl describe pod} lists them, from the component that saw what happened. */
public final class PodEvents {

    private PodEvents() {
    }

    /**
     * Records an event about {@code pod} from {@code component} ({@code default-scheduler}, {@code kubelet},
     * {@code resource_claim}); one that cannot be written is only logged.
     */
    public static void record(KubernetesClient client, Pod pod, String type, String reason, String message, String component) {
        String now = Instant.now().toString();
        try {
            client.v1().events().inNamespace(pod.getMetadata().getNamespace()).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(pod.getMetadata().getName() + ".").endMetadata()
                    .withNewInvolvedObject().withKind("Pod").withApiVersion("v1")
                    .withNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .withUid(pod.getMetadata().getUid()).endInvolvedObject()
                    .withType(type).withReason(reason).withMessage(message).withCount(1)
                    .withFirstTimestamp(now).withLastTimestamp(now)
                    .withNewSource().withComponent(component).endSource().build()).create();
        } catch (KubernetesClientException e) {
            System.getLogger(PodEvents.class.getName()).log(System.Logger.Level.DEBUG,
                    "could not record event {0} of {1}: {2}", reason, pod.getMetadata().getName(), e.getMessage());
        }
    }
}
