package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.node.ClaimRef;

/**
 * Reads a ResourceClaim's allocation from the API server. The fabric8 adapter
 * ({@code dev.kgpu.plugin.dra.kubernetes.KubernetesClaims}) implements it; tests use a map. Must be thread-safe; may
 * block for one API request.
 */
@FunctionalInterface
public interface ClaimSource {

    /** The allocation of {@code claim}, looked up by namespace and name and checked against its UID. Never throws. */
    ClaimAllocation read(ClaimRef claim);
}
