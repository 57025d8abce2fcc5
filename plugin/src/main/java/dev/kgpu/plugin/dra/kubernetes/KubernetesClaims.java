package dev.kgpu.plugin.dra.kubernetes;

import dev.kgpu.agent.kubernetes.KubernetesError;
import dev.kgpu.plugin.dra.AllocatedDevice;
import dev.kgpu.plugin.dra.ClaimAllocation;
import dev.kgpu.plugin.dra.ClaimSource;
import dev.kgpu.plugin.node.ClaimRef;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import dev.kgpu.plugin.dra.config.ClaimConfig;

import java.util.List;
import java.util.Optional;
import java.util.Objects;

/**
 * ResourceClaims ({@code resource.k8s.io/v1}) read through fabric8: one GET by namespace and name, the UID compared
 * with the kubelet's, {@code status.allocation.devices.results} turned into {@link AllocatedDevice}s (a missing pool or
 * device reads as empty, which the preparer refuses; {@code adminAccess} as given). Needs
 * {@code get} on {@code resourceclaims}. Thread-safe, as the client is.
 */
public final class KubernetesClaims implements ClaimSource {

    private final KubernetesClient client;

    public KubernetesClaims(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public ClaimAllocation read(ClaimRef claim) {
        ResourceClaim found;
        try {
            found = client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(claim.namespace())
                    .withName(claim.name()).get();
        } catch (KubernetesClientException e) {
            return new ClaimAllocation.Unreadable(KubernetesError.of(e).describe());
        } catch (IllegalArgumentException e) {
            // fabric8's own check of the namespace or name (the preparer checks them first; this keeps it per claim)
            return new ClaimAllocation.Unreadable("the request could not be made: " + e.getMessage());
        }
        if (found == null) {
            return new ClaimAllocation.NotFound();
        }
        String uid = found.getMetadata() == null ? null : found.getMetadata().getUid();
        if (!claim.uid().equals(uid)) {
            return new ClaimAllocation.Replaced(String.valueOf(uid));
        }
        AllocationResult allocation = found.getStatus() == null ? null : found.getStatus().getAllocation();
        if (allocation == null) {
            return new ClaimAllocation.NotAllocated();
        }
        List<DeviceRequestAllocationResult> results = allocation.getDevices() == null || allocation.getDevices().getResults() == null
                ? List.of() : allocation.getDevices().getResults();
        List<io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration> configs =
                allocation.getDevices() == null || allocation.getDevices().getConfig() == null
                        ? List.of() : allocation.getDevices().getConfig();
        return new ClaimAllocation.Allocated(results.stream()
                .map(r -> new AllocatedDevice(orEmpty(r.getRequest()), orEmpty(r.getDriver()),
                        orEmpty(r.getPool()), orEmpty(r.getDevice()), Boolean.TRUE.equals(r.getAdminAccess())))
                .toList(), configs.stream().map(KubernetesClaims::config).toList());
    }

    /** One config entry; its opaque parameters as JSON (as the API server stored them). */
    private static ClaimConfig config(io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration c) {
        Optional<String> driver = Optional.ofNullable(c.getOpaque()).map(o -> orEmpty(o.getDriver()));
        Optional<String> parameters = Optional.ofNullable(c.getOpaque()).map(o -> o.getParameters())
                .map(io.fabric8.kubernetes.client.utils.Serialization::asJson);
        return new ClaimConfig(orEmpty(c.getSource()), c.getRequests() == null ? List.of() : c.getRequests(), driver,
                parameters);
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }
}
