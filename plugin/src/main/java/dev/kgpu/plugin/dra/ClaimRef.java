package dev.kgpu.plugin.dra;

import java.util.Objects;

/** A ResourceClaim as the kubelet names it in NodePrepareResources / NodeUnprepareResources. Immutable. */
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
