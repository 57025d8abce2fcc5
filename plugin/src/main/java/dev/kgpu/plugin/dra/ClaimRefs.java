package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.node.ClaimRef;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Checks of a claim reference as the kubelet sends it in NodePrepareResources / NodeUnprepareResources, made before any
 * I/O: the UID names the claim's CDI spec file and CDI device, the namespace and name are what the API server is asked
 * for. A bad reference fails its own claim with one line; the other claims of the call go on. Pure.
 */
public final class ClaimRefs {

    /** What a UID may be here: Kubernetes' are UUIDs; this keeps any file name or CDI device name it makes valid. */
    private static final Pattern UID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private ClaimRefs() {
    }

    /** Why the kubelet's reference cannot be used, in one line; empty when it can. */
    public static Optional<String> problem(ClaimRef claim) {
        String named = "claim " + claim.namespace() + "/" + claim.name();
        if (claim.uid().isEmpty()) {
            return Optional.of(named + ": the kubelet sent no UID");
        }
        if (!UID.matcher(claim.uid()).matches()) {
            return Optional.of(named + ": UID '" + claim.uid() + "' is not a Kubernetes UID");
        }
        String byUid = "claim " + claim.uid();
        if (claim.namespace().isEmpty()) {
            return Optional.of(byUid + ": the kubelet sent no namespace (name '" + claim.name() + "')");
        }
        if (!DNS_LABEL.matcher(claim.namespace()).matches()) {
            return Optional.of(byUid + ": namespace '" + claim.namespace() + "' is not a DNS label");
        }
        if (claim.name().isEmpty()) {
            return Optional.of(byUid + ": the kubelet sent no name (namespace '" + claim.namespace() + "')");
        }
        if (claim.name().length() > 253 || !DNS_SUBDOMAIN.matcher(claim.name()).matches()) {
            return Optional.of(byUid + ": name '" + claim.name() + "' is not a DNS subdomain");
        }
        return Optional.empty();
    }

    /**
     * The UIDs {@code claims} names more than once under different namespaces or names, each with the line its answer
     * carries (the answer is keyed by UID: one entry, and neither reference can be trusted). Identical repeats are
     * not listed: they are one claim, answered once.
     */
    public static Map<String, String> conflictingDuplicates(List<ClaimRef> claims) {
        Map<String, List<ClaimRef>> byUid = new LinkedHashMap<>();
        for (ClaimRef claim : claims) {
            List<ClaimRef> seen = byUid.computeIfAbsent(claim.uid(), uid -> new ArrayList<>());
            if (!seen.contains(claim)) {
                seen.add(claim);
            }
        }
        Map<String, String> conflicting = new LinkedHashMap<>();
        byUid.forEach((uid, refs) -> {
            if (refs.size() > 1) {
                conflicting.put(uid, "claim " + uid + " was sent more than once in this call, as "
                        + String.join(" and ", refs.stream().map(r -> r.namespace() + "/" + r.name()).toList()));
            }
        });
        return conflicting;
    }
}
