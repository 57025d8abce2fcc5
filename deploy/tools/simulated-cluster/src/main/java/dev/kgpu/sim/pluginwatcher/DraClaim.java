package dev.kgpu.sim.pluginwatcher;

import java.util.Objects;

/** A ResourceClaim as the kubelet names it to a DRA driver: namespace, name and UID. */
public record DraClaim(String namespace, String name, String uid) {

    public DraClaim {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uid, "uid");
    }
}
