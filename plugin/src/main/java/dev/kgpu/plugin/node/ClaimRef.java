package dev.kgpu.plugin.node;

import java.util.Objects;

/**
 * A ResourceClaim as the kubelet names it in NodePrepareResources / NodeUnprepareResources, and as the
 * {@link AllocationLedger} names the claim that holds devices. Immutable.
 */
public record ClaimRef(String namespace, String name, String uid) {

    public ClaimRef {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uid, "uid");
    }

    @Override
    public String toString() {
        return namespace + "/" + name + " (" + uid + ")";
    }
}
