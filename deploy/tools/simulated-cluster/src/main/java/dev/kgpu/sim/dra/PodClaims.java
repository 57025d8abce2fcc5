package dev.kgpu.sim.dra;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A pod's ResourceClaims ({@code spec.resourceClaims}): each named in the pod ({@code resourceClaimName}) or made
 * for it from a template, whose name is then in {@code status.resourceClaimStatuses}.
 */
public final class PodClaims {

    /** The annotation the resourceclaim controller puts on a claim it made from a template. */
    public static final String POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name";

    private PodClaims() {
    }

    /**
     * One of the pod's claims.
     *
     * @param podClaimName the name in the pod, which containers' {@code resources.claims} use
     * @param claimName    the ResourceClaim's name; empty for a template whose claim was not made yet
     * @param template     the ResourceClaimTemplate it is made from, if any
     */
    public record Entry(String podClaimName, Optional<String> claimName, Optional<String> template) {
    }

    public static boolean any(Pod pod) {
        return pod.getSpec() != null && pod.getSpec().getResourceClaims() != null && !pod.getSpec().getResourceClaims().isEmpty();
    }

    /** The pod's claims, in its order. */
    public static List<Entry> of(Pod pod) {
        List<Entry> entries = new ArrayList<>();
        if (!any(pod)) {
            return entries;
        }
        List<PodResourceClaimStatus> statuses = pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null
                ? List.of() : pod.getStatus().getResourceClaimStatuses();
        for (PodResourceClaim claim : pod.getSpec().getResourceClaims()) {
            if (claim.getResourceClaimName() != null && !claim.getResourceClaimName().isEmpty()) {
                entries.add(new Entry(claim.getName(), Optional.of(claim.getResourceClaimName()), Optional.empty()));
            } else {
                Optional<String> generated = statuses.stream().filter(s -> claim.getName().equals(s.getName()))
                        .map(PodResourceClaimStatus::getResourceClaimName).filter(n -> n != null && !n.isEmpty()).findFirst();
                entries.add(new Entry(claim.getName(), generated, Optional.ofNullable(claim.getResourceClaimTemplateName())));
            }
        }
        return entries;
    }

    /** The claim's {@code status.reservedFor} entry for {@code pod}. */
    public static ResourceClaimConsumerReference consumer(Pod pod) {
        return new ResourceClaimConsumerReferenceBuilder().withResource("pods").withApiGroup("")
                .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build();
    }

    /** Whether {@code claim} is reserved for {@code podUid}. */
    public static boolean reservedFor(ResourceClaim claim, String podUid) {
        return reservations(claim).stream().anyMatch(r -> podUid.equals(r.getUid()));
    }

    public static List<ResourceClaimConsumerReference> reservations(ResourceClaim claim) {
        return claim.getStatus() == null || claim.getStatus().getReservedFor() == null ? List.of()
                : claim.getStatus().getReservedFor();
    }

    public static boolean allocated(ResourceClaim claim) {
        return claim.getStatus() != null && claim.getStatus().getAllocation() != null;
    }
}
