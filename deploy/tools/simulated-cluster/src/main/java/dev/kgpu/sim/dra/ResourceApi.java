package dev.kgpu.sim.dra;

import dev.kgpu.sim.scheduler.NodeAffinity;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.V1DynamicresourceAllocationAPIGroupDSL;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The {@code resource.k8s.io/v1} objects the scheduler, the resourceclaim controller and the kubelet read and
 * write, through fabric8. Thread-safe, as the client is.
 */
final class ResourceApi {

    private final KubernetesClient client;

    ResourceApi(KubernetesClient client) {
        this.client = client;
    }

    V1DynamicresourceAllocationAPIGroupDSL v1() {
        return client.dynamicResourceAllocation().v1();
    }

    KubernetesClient client() {
        return client;
    }

    /** The claim, or null. */
    ResourceClaim claim(String namespace, String name) {
        return v1().resourceClaims().inNamespace(namespace).withName(name).get();
    }

    List<ResourceClaim> allClaims() {
        return v1().resourceClaims().inAnyNamespace().list().getItems();
    }

    Optional<DeviceClass> deviceClass(String name) {
        return Optional.ofNullable(v1().deviceClasses().withName(name).get());
    }

    /** Changes the claim's status (a missing status is created first); the changed claim. */
    ResourceClaim editStatus(ResourceClaim claim, Consumer<ResourceClaimStatus> change) {
        return v1().resourceClaims().inNamespace(claim.getMetadata().getNamespace()).withName(claim.getMetadata().getName())
                .editStatus(c -> {
                    if (c.getStatus() == null) {
                        c.setStatus(new ResourceClaimStatus());
                    }
                    change.accept(c.getStatus());
                    if (c.getStatus().getReservedFor() != null && c.getStatus().getReservedFor().isEmpty()) {
                        c.getStatus().setReservedFor(null);
                    }
                    return c;
                });
    }

    /**
     * The devices the node can use, in slice order: those of the slices of {@code node} ({@code spec.nodeName}),
     * of every node ({@code allNodes}) or whose node selector admits it, from the newest generation of each pool,
     * and only of pools whose slices at that generation are all there ({@code resourceSliceCount}), as the
     * scheduler's allocator takes them.
     */
    List<SliceDevice> devices(Node node) {
        Map<String, List<ResourceSlice>> pools = new LinkedHashMap<>();
        for (ResourceSlice slice : v1().resourcesSlices().list().getItems()) {
            ResourceSliceSpec spec = slice.getSpec();
            if (spec == null || spec.getPool() == null || !forNode(spec, node)) {
                continue;
            }
            pools.computeIfAbsent(spec.getDriver() + "/" + spec.getPool().getName(), k -> new ArrayList<>()).add(slice);
        }
        List<SliceDevice> devices = new ArrayList<>();
        for (List<ResourceSlice> slices : pools.values()) {
            long newest = slices.stream().mapToLong(s -> generation(s.getSpec())).max().orElse(0);
            List<ResourceSlice> current = slices.stream().filter(s -> generation(s.getSpec()) == newest)
                    .sorted(Comparator.comparing(s -> s.getMetadata().getName())).toList();
            Long count = current.getFirst().getSpec().getPool().getResourceSliceCount();
            if (count != null && current.size() < count) {
                continue;
            }
            for (ResourceSlice slice : current) {
                if (slice.getSpec().getDevices() != null) {
                    for (Device device : slice.getSpec().getDevices()) {
                        devices.add(new SliceDevice(slice.getSpec().getDriver(), slice.getSpec().getPool().getName(), device));
                    }
                }
            }
        }
        return devices;
    }

    private static long generation(ResourceSliceSpec spec) {
        return spec.getPool().getGeneration() == null ? 0 : spec.getPool().getGeneration();
    }

    private static boolean forNode(ResourceSliceSpec spec, Node node) {
        if (node.getMetadata().getName().equals(spec.getNodeName()) || Boolean.TRUE.equals(spec.getAllNodes())) {
            return true;
        }
        return spec.getNodeSelector() != null && spec.getNodeSelector().getNodeSelectorTerms() != null
                && NodeAffinity.matchesAnyTerm(spec.getNodeSelector().getNodeSelectorTerms(), node);
    }
}
