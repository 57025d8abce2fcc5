package dev.kgpu.sim.dra;

import dev.kgpu.sim.scheduler.PodEvents;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * kube-controller-manager's resourceclaim controller, and the garbage collector's part in it, for the pods of a
 * one-node cluster:
 *
 * <ul>
 *   <li>For each {@code resourceClaimTemplateName} of a pod that has no claim yet it creates one from the template
 *       (its labels, annotations and spec), named {@code <pod>-<pod claim>-<5 random characters>} (both parts cut in
 *       proportion when that would pass 63 characters), annotated {@code resource.kubernetes.io/pod-claim-name} and
 *       owned by the pod, and records it in the pod's {@code status.resourceClaimStatuses}. A missing template is a
 *       {@code FailedResourceClaimCreation} event; the pod then waits.</li>
 *   <li>When a pod has ended or is deleted it leaves each claim's {@code reservedFor}; a claim reserved for no
 *       one is deallocated ({@code status.allocation} removed), or deleted when it was made for that pod.</li>
 * </ul>
 *
 * <p>Called on the {@code SchedulerAndKubelet}'s thread only.
 */
public final class ResourceClaimController {

    private static final System.Logger LOG = System.getLogger(ResourceClaimController.class.getName());
    private static final String RANDOM_CHARACTERS = "bcdfghjklmnpqrstvwxz2456789";
    private static final int MAX_BASE_LENGTH = 57;

    private final ResourceApi api;
    private final SecureRandom random = new SecureRandom();

    public ResourceClaimController(KubernetesClient client) {
        this.api = new ResourceApi(client);
    }

    /**
     * Makes the claims of {@code pod}'s templates that do not exist yet.
     *
     * @return the pod as it is now (with the claims in its status), or {@code pod} when nothing changed
     */
    public Pod ensureClaims(Pod pod) {
        if (!PodClaims.any(pod)) {
            return pod;
        }
        String namespace = pod.getMetadata().getNamespace();
        Map<String, String> made = new LinkedHashMap<>();
        for (PodClaims.Entry entry : PodClaims.of(pod)) {
            if (entry.claimName().isPresent() || entry.template().isEmpty()) {
                continue;
            }
            Optional<ResourceClaim> existing = api.v1().resourceClaims().inNamespace(namespace).list().getItems().stream()
                    .filter(c -> ownedBy(c, pod) && entry.podClaimName().equals(annotation(c))).findFirst();
            if (existing.isPresent()) {
                made.put(entry.podClaimName(), existing.get().getMetadata().getName());
                continue;
            }
            ResourceClaimTemplate template = api.v1().resourceClaimTemplates().inNamespace(namespace)
                    .withName(entry.template().get()).get();
            if (template == null) {
                event(pod, "FailedResourceClaimCreation", "PodResourceClaim " + entry.podClaimName()
                        + ": resource claim template \"" + entry.template().get() + "\": resourceclaimtemplate.resource.k8s.io \""
                        + entry.template().get() + "\" not found");
                continue;
            }
            ResourceClaim claim = create(pod, entry.podClaimName(), template);
            made.put(entry.podClaimName(), claim.getMetadata().getName());
            LOG.log(System.Logger.Level.INFO, "made claim {0}/{1} for pod {2} from template {3}", namespace,
                    claim.getMetadata().getName(), pod.getMetadata().getName(), entry.template().get());
        }
        if (made.isEmpty()) {
            return pod;
        }
        return api.client().pods().inNamespace(namespace).withName(pod.getMetadata().getName()).editStatus(p -> {
            if (p.getStatus() == null) {
                p.setStatus(new PodStatus());
            }
            List<PodResourceClaimStatus> statuses = new ArrayList<>(p.getStatus().getResourceClaimStatuses() == null
                    ? List.of() : p.getStatus().getResourceClaimStatuses());
            made.forEach((podClaim, claim) -> statuses.add(new PodResourceClaimStatus(podClaim, claim)));
            p.getStatus().setResourceClaimStatuses(statuses);
            return p;
        });
    }

    private ResourceClaim create(Pod pod, String podClaimName, ResourceClaimTemplate template) {
        ObjectMeta templateMeta = template.getSpec().getMetadata() == null ? new ObjectMeta() : template.getSpec().getMetadata();
        Map<String, String> annotations = new LinkedHashMap<>(templateMeta.getAnnotations() == null ? Map.of() : templateMeta.getAnnotations());
        annotations.put(PodClaims.POD_CLAIM_NAME, podClaimName);
        String base = generateName(pod.getMetadata().getName(), podClaimName);
        for (int attempt = 1; ; attempt++) {
            String name = base + randomSuffix();
            ResourceClaim claim = new ResourceClaimBuilder().withNewMetadata().withName(name)
                    .withNamespace(pod.getMetadata().getNamespace()).withLabels(templateMeta.getLabels())
                    .withAnnotations(annotations)
                    .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Pod")
                            .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid())
                            .withController(true).withBlockOwnerDeletion(true).build())
                    .endMetadata().withSpec(template.getSpec().getSpec()).build();
            try {
                return api.v1().resourceClaims().inNamespace(pod.getMetadata().getNamespace()).resource(claim).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    /** The resourceclaim controller's {@code generateName}: both parts cut in proportion when too long. */
    static String generateName(String pod, String podClaim) {
        String name = pod + "-" + podClaim + "-";
        if (name.length() > MAX_BASE_LENGTH) {
            int length = name.length();
            name = pod.substring(0, pod.length() * MAX_BASE_LENGTH / length) + "-"
                    + podClaim.substring(0, podClaim.length() * MAX_BASE_LENGTH / length) + "-";
        }
        return name;
    }

    private String randomSuffix() {
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(RANDOM_CHARACTERS.charAt(random.nextInt(RANDOM_CHARACTERS.length())));
        }
        return suffix.toString();
    }

    /**
     * {@code pod} ended or was deleted ({@code deleted}): it leaves its claims' reservations; a claim reserved for
     * no one is deallocated, or deleted when it was made for this pod. A deleted pod's own claims go in any case.
     */
    public void podDone(Pod pod, boolean deleted) {
        if (!PodClaims.any(pod)) {
            return;
        }
        String namespace = pod.getMetadata().getNamespace();
        String uid = pod.getMetadata().getUid();
        for (PodClaims.Entry entry : PodClaims.of(pod)) {
            if (entry.claimName().isEmpty()) {
                continue;
            }
            ResourceClaim claim = api.claim(namespace, entry.claimName().get());
            if (claim == null) {
                continue;
            }
            List<?> others = PodClaims.reservations(claim).stream().filter(r -> !uid.equals(r.getUid())).toList();
            try {
                if (others.isEmpty() && ownedBy(claim, pod)) {
                    api.v1().resourceClaims().inNamespace(namespace).withName(claim.getMetadata().getName()).delete();
                    LOG.log(System.Logger.Level.INFO, "deleted claim {0}/{1} of pod {2}", namespace,
                            claim.getMetadata().getName(), pod.getMetadata().getName());
                } else if (PodClaims.reservedFor(claim, uid) || others.isEmpty() && PodClaims.allocated(claim)) {
                    api.editStatus(claim, status -> {
                        if (status.getReservedFor() != null) {
                            status.setReservedFor(new ArrayList<>(status.getReservedFor().stream()
                                    .filter(r -> !uid.equals(r.getUid())).toList()));
                        }
                        if (status.getReservedFor() == null || status.getReservedFor().isEmpty()) {
                            status.setAllocation(null);
                        }
                    });
                    LOG.log(System.Logger.Level.INFO, "claim {0}/{1}: pod {2} left it{3}", namespace,
                            claim.getMetadata().getName(), pod.getMetadata().getName(), others.isEmpty() ? "; deallocated" : "");
                }
            } catch (KubernetesClientException e) {
                LOG.log(System.Logger.Level.WARNING, "claim {0}/{1}: {2}", namespace, claim.getMetadata().getName(), e.getMessage());
            }
        }
        if (deleted) {
            api.v1().resourceClaims().inNamespace(namespace).list().getItems().stream().filter(c -> ownedBy(c, pod))
                    .forEach(c -> api.v1().resourceClaims().inNamespace(namespace).withName(c.getMetadata().getName()).delete());
        }
    }

    private static boolean ownedBy(ResourceClaim claim, Pod pod) {
        return claim.getMetadata().getOwnerReferences() != null && claim.getMetadata().getOwnerReferences().stream()
                .anyMatch(o -> pod.getMetadata().getUid().equals(o.getUid()));
    }

    private static String annotation(ResourceClaim claim) {
        return claim.getMetadata().getAnnotations() == null ? null : claim.getMetadata().getAnnotations().get(PodClaims.POD_CLAIM_NAME);
    }

    private void event(Pod pod, String reason, String message) {
        LOG.log(System.Logger.Level.INFO, "pod {0}/{1}: {2}: {3}", pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(), reason, message);
        PodEvents.record(api.client(), pod, "Warning", reason, message, "resource_claim");
    }
}
