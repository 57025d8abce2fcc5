package dev.kgpu.sim.dra;

import dev.kgpu.sim.scheduler.NodeAffinity;
import dev.kgpu.sim.scheduler.Scheduler;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * kube-scheduler's DynamicResources plugin for a one-node cluster: a pod with {@code spec.resourceClaims} fits the
 * node only when each of its ResourceClaims exists and either is allocated already (shared: the pod joins its
 * {@code reservedFor}) or can be allocated now from the node's ResourceSlices ({@link DeviceAllocator}, with the
 * devices of every other allocated claim in use). Reserve then writes each claim's {@code status.allocation}
 * (the devices' results and a node selector for this node) and adds the pod to {@code status.reservedFor}, before the
 * pod is bound, as the plugin's Reserve and PreBind do.
 *
 * <p>Why a pod does not fit, in the scheduler's words: {@code waiting for dynamic resource controller to create the
 * resourceclaim "<pod claim>"}, {@code resourceclaim "<name>" not found}, {@code resourceclaim "<name>" is being
 * deleted}, {@code resourceclaim in use} (256 reservations), {@code resourceclaim not available on the node},
 * {@code cannot allocate all claims}; a claim no node can satisfy (a DeviceClass missing, a selector that does not
 * compile or evaluate) is reported with the allocator's reason.
 *
 * <p>Called on the {@code SchedulerAndKubelet}'s thread only.
 */
public final class DynamicResources implements Scheduler {

    private static final System.Logger LOG = System.getLogger(DynamicResources.class.getName());
    /** Kubernetes' limit on {@code status.reservedFor} ({@code ResourceClaimReservedForMaxSize}). */
    static final int MAX_RESERVATIONS = 256;
    static final String CANNOT_ALLOCATE = "cannot allocate all claims";

    private final ResourceApi api;
    /** By pod UID: the allocations the last filter found for its unallocated claims, by claim key. */
    private final Map<String, Map<String, List<DeviceRequestAllocationResult>>> found = new HashMap<>();
    /**
     * The pod of the last Reserve (by UID) and the claims it changed, each with whether it allocated it: what
     * Unreserve undoes when that pod is then not bound. Reserve, bind and Unreserve of one pod come one after the
     * other on the scheduler's thread, so the last one is all that is needed.
     */
    private String reservedPod = "";
    private final Map<String, Boolean> reservedClaims = new HashMap<>();

    public DynamicResources(KubernetesClient client) {
        this.api = new ResourceApi(client);
    }

    @Override
    public Optional<String> filter(Pod pod, Node node, List<Pod> podsOnNode) {
        found.remove(pod.getMetadata().getUid());
        if (!PodClaims.any(pod)) {
            return Optional.empty();
        }
        List<ResourceClaim> toAllocate = new ArrayList<>();
        for (PodClaims.Entry entry : PodClaims.of(pod)) {
            if (entry.claimName().isEmpty()) {
                return Optional.of("waiting for dynamic resource controller to create the resourceclaim \""
                        + entry.podClaimName() + "\"");
            }
            String name = entry.claimName().get();
            ResourceClaim claim = api.claim(pod.getMetadata().getNamespace(), name);
            if (claim == null) {
                return Optional.of("resourceclaim \"" + name + "\" not found");
            }
            if (claim.getMetadata().getDeletionTimestamp() != null) {
                return Optional.of("resourceclaim \"" + name + "\" is being deleted");
            }
            if (PodClaims.allocated(claim)) {
                if (!PodClaims.reservedFor(claim, pod.getMetadata().getUid())
                        && PodClaims.reservations(claim).size() >= MAX_RESERVATIONS) {
                    return Optional.of("resourceclaim in use");
                }
                var selector = claim.getStatus().getAllocation().getNodeSelector();
                if (selector != null && selector.getNodeSelectorTerms() != null
                        && !NodeAffinity.matchesAnyTerm(selector.getNodeSelectorTerms(), node)) {
                    return Optional.of("resourceclaim not available on the node");
                }
            } else {
                toAllocate.add(claim);
            }
        }
        if (toAllocate.isEmpty()) {
            return Optional.empty();
        }
        Set<SliceDevice.Id> inUse = new HashSet<>();
        for (ResourceClaim other : api.allClaims()) {
            if (PodClaims.allocated(other) && other.getStatus().getAllocation().getDevices() != null
                    && other.getStatus().getAllocation().getDevices().getResults() != null) {
                for (DeviceRequestAllocationResult result : other.getStatus().getAllocation().getDevices().getResults()) {
                    if (!Boolean.TRUE.equals(result.getAdminAccess())) {
                        inUse.add(new SliceDevice.Id(result.getDriver(), result.getPool(), result.getDevice()));
                    }
                }
            }
        }
        DeviceAllocator allocator = new DeviceAllocator(api.devices(node), inUse, api::deviceClass);
        return switch (allocator.allocate(toAllocate)) {
            case DeviceAllocator.Outcome.Allocated allocated -> {
                found.put(pod.getMetadata().getUid(), allocated.results());
                yield Optional.empty();
            }
            case DeviceAllocator.Outcome.Unsatisfiable unsatisfiable -> Optional.of(CANNOT_ALLOCATE);
            case DeviceAllocator.Outcome.Failed failed -> {
                LOG.log(System.Logger.Level.INFO, "pod {0}/{1}: {2}", pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(), failed.reason());
                yield Optional.of(failed.reason());
            }
        };
    }

    @Override
    public Optional<String> reserve(Pod pod, Node node) {
        String uid = pod.getMetadata().getUid();
        Map<String, List<DeviceRequestAllocationResult>> allocations = found.getOrDefault(uid, Map.of());
        reservedPod = uid;
        reservedClaims.clear();
        Map<String, Boolean> changed = reservedClaims;
        for (PodClaims.Entry entry : PodClaims.of(pod)) {
            String namespace = pod.getMetadata().getNamespace();
            String name = entry.claimName().orElseThrow();
            String key = namespace + "/" + name;
            try {
                ResourceClaim claim = api.claim(namespace, name);
                if (claim == null) {
                    unreserve(pod);
                    return Optional.of("resourceclaim \"" + name + "\" not found");
                }
                if (PodClaims.reservedFor(claim, uid)) {
                    continue;
                }
                boolean allocate = !PodClaims.allocated(claim);
                if (allocate && !allocations.containsKey(key)) {
                    unreserve(pod);
                    return Optional.of("resourceclaim \"" + name + "\" changed since the pod was filtered");
                }
                api.editStatus(claim, status -> {
                    if (status.getAllocation() == null) {
                        status.setAllocation(allocation(allocations.get(key), node));
                    }
                    List<io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference> reservedFor =
                            new ArrayList<>(status.getReservedFor() == null ? List.of() : status.getReservedFor());
                    reservedFor.add(PodClaims.consumer(pod));
                    status.setReservedFor(reservedFor);
                });
                changed.put(key, allocate);
                LOG.log(System.Logger.Level.INFO, "claim {0} {1} pod {2}", key, allocate
                        ? "allocated " + allocations.get(key).stream().map(DeviceRequestAllocationResult::getDevice).toList() + " for"
                        : "reserved for", pod.getMetadata().getName());
            } catch (KubernetesClientException e) {
                unreserve(pod);
                return Optional.of("resourceclaim \"" + name + "\" could not be reserved: " + e.getMessage());
            }
        }
        found.remove(uid);
        return Optional.empty();
    }

    @Override
    public void unreserve(Pod pod) {
        found.remove(pod.getMetadata().getUid());
        if (!reservedPod.equals(pod.getMetadata().getUid())) {
            return;
        }
        Map<String, Boolean> changed = Map.copyOf(reservedClaims);
        reservedPod = "";
        reservedClaims.clear();
        changed.forEach((key, allocated) -> {
            String[] parts = key.split("/", 2);
            try {
                ResourceClaim claim = api.claim(parts[0], parts[1]);
                if (claim != null) {
                    api.editStatus(claim, status -> {
                        if (status.getReservedFor() != null) {
                            status.setReservedFor(new ArrayList<>(status.getReservedFor().stream()
                                    .filter(r -> !pod.getMetadata().getUid().equals(r.getUid())).toList()));
                        }
                        if (allocated && (status.getReservedFor() == null || status.getReservedFor().isEmpty())) {
                            status.setAllocation(null);
                        }
                    });
                }
            } catch (KubernetesClientException e) {
                LOG.log(System.Logger.Level.WARNING, "could not undo the reservation of claim {0}: {1}", key, e.getMessage());
            }
        });
    }

    private static AllocationResult allocation(List<DeviceRequestAllocationResult> results, Node node) {
        return new AllocationResultBuilder().withNewDevices().withResults(results).endDevices()
                .withNodeSelector(new NodeSelectorBuilder().addNewNodeSelectorTerm()
                        .withMatchFields(new NodeSelectorRequirement("metadata.name", "In", List.of(node.getMetadata().getName())))
                        .endNodeSelectorTerm().build())
                .build();
    }
}
