package dev.kgpu.sim.dra;

import dev.kgpu.sim.runtime.DeviceInjection;
import dev.kgpu.sim.runtime.DeviceManager;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The kubelet's DRA manager ({@code pkg/kubelet/cm/dra}): before a pod's containers start, each of its
 * ResourceClaims must exist, be allocated and reserved for the pod; a claim not yet prepared on the node is
 * prepared with NodePrepareResources of each driver whose devices it was allocated ({@link DraDrivers}); a claim
 * already prepared for another pod (a shared claim) is not prepared again. Each container then gets the CDI device
 * IDs of the claims its {@code resources.claims} name (of the one {@code request} when given: the devices that
 * serve it). When the last pod using a claim on the node ends or goes, the claim is unprepared.
 *
 * <p>A claim that cannot be prepared keeps the pod {@code Pending} with its containers in
 * {@code ContainerCreating} and a {@code FailedPrepareDynamicResources} event, as the kubelet does (it tries again
 * when the pod changes).
 *
 * <p>Called on the {@code SchedulerAndKubelet}'s thread only.
 */
public final class DraKubeletManager implements DeviceManager {

    private static final System.Logger LOG = System.getLogger(DraKubeletManager.class.getName());
    static final String FAILED_PREPARE = "FailedPrepareDynamicResources";

    private final ResourceApi api;
    private final DraDrivers drivers;
    /** Claims prepared on the node, by UID: the claim and each driver's devices. */
    private final Map<String, PreparedClaim> prepared = new LinkedHashMap<>();
    /** By claim UID, the pods (UIDs) that use it on the node. */
    private final Map<String, Set<String>> users = new HashMap<>();

    private record PreparedClaim(DraDrivers.Claim claim, Map<String, List<DraDrivers.Device>> devicesByDriver) {
        List<DraDrivers.Device> devices() {
            return devicesByDriver.values().stream().flatMap(List::stream).toList();
        }
    }

    public DraKubeletManager(KubernetesClient client, DraDrivers drivers) {
        this.api = new ResourceApi(client);
        this.drivers = drivers;
    }

    @Override
    public Admission admit(Pod pod) {
        if (!PodClaims.any(pod)) {
            return new Admission.Admitted(Map.of());
        }
        String namespace = pod.getMetadata().getNamespace();
        String podUid = pod.getMetadata().getUid();
        Map<String, String> uidByPodClaim = new LinkedHashMap<>();
        for (PodClaims.Entry entry : PodClaims.of(pod)) {
            if (entry.claimName().isEmpty()) {
                return failed("resource claim for pod claim " + entry.podClaimName() + " was not created yet");
            }
            String name = entry.claimName().get();
            ResourceClaim claim;
            try {
                claim = api.claim(namespace, name);
            } catch (KubernetesClientException e) {
                return failed("failed to fetch ResourceClaim " + name + ": " + e.getMessage());
            }
            if (claim == null) {
                return failed("failed to fetch ResourceClaim " + name + ": resourceclaims.resource.k8s.io \"" + name + "\" not found");
            }
            if (!PodClaims.reservedFor(claim, podUid)) {
                return failed("pod " + pod.getMetadata().getName() + " (" + podUid + ") is not allowed to use ResourceClaim "
                        + name + " (" + claim.getMetadata().getUid() + ")");
            }
            if (!PodClaims.allocated(claim)) {
                return failed("ResourceClaim " + name + " is not allocated");
            }
            String uid = claim.getMetadata().getUid();
            uidByPodClaim.put(entry.podClaimName(), uid);
            if (!prepared.containsKey(uid)) {
                Optional<String> error = prepare(claim);
                if (error.isPresent()) {
                    return failed(error.get());
                }
            }
        }
        uidByPodClaim.values().forEach(uid -> users.computeIfAbsent(uid, u -> new LinkedHashSet<>()).add(podUid));
        Map<String, DeviceInjection> containers = new LinkedHashMap<>();
        for (Container container : pod.getSpec().getContainers()) {
            if (container.getResources() == null || container.getResources().getClaims() == null) {
                continue;
            }
            List<String> cdi = new ArrayList<>();
            for (var reference : container.getResources().getClaims()) {
                String uid = uidByPodClaim.get(reference.getName());
                if (uid == null) {
                    continue;
                }
                for (DraDrivers.Device device : prepared.get(uid).devices()) {
                    String request = reference.getRequest();
                    if (request == null || request.isEmpty() || device.requestNames().isEmpty()
                            || device.requestNames().contains(request)) {
                        device.cdiDeviceIds().stream().filter(id -> !cdi.contains(id)).forEach(cdi::add);
                    }
                }
            }
            containers.put(container.getName(), new DeviceInjection(Map.of(), List.of(), Map.of(), cdi));
        }
        return new Admission.Admitted(containers);
    }

    /** NodePrepareResources of each driver of the claim's devices; the error, if any. */
    private Optional<String> prepare(ResourceClaim claim) {
        DraDrivers.Claim ref = new DraDrivers.Claim(claim.getMetadata().getNamespace(), claim.getMetadata().getName(),
                claim.getMetadata().getUid());
        Set<String> driverNames = new LinkedHashSet<>();
        var results = claim.getStatus().getAllocation().getDevices() == null ? null
                : claim.getStatus().getAllocation().getDevices().getResults();
        if (results != null) {
            results.stream().map(DeviceRequestAllocationResult::getDriver).forEach(driverNames::add);
        }
        Map<String, List<DraDrivers.Device>> devices = new LinkedHashMap<>();
        for (String driver : driverNames) {
            DraDrivers.Prepared answer;
            try {
                answer = drivers.prepare(driver, List.of(ref)).get(ref.uid());
            } catch (DraDrivers.DriverException e) {
                unprepareQuietly(ref, devices.keySet());
                return Optional.of("prepare dynamic resources: NodePrepareResources failed for ResourceClaim " + ref.name()
                        + ": " + e.getMessage());
            }
            if (answer == null || answer.error().isPresent()) {
                unprepareQuietly(ref, devices.keySet());
                return Optional.of("prepare dynamic resources: NodePrepareResources failed for ResourceClaim " + ref.name()
                        + ": " + (answer == null ? "driver " + driver + " skipped it" : answer.error().get()));
            }
            devices.put(driver, answer.devices());
        }
        prepared.put(ref.uid(), new PreparedClaim(ref, devices));
        LOG.log(System.Logger.Level.INFO, "prepared claim {0}/{1}: {2}", ref.namespace(), ref.name(),
                devices.values().stream().flatMap(List::stream).flatMap(d -> d.cdiDeviceIds().stream()).toList());
        return Optional.empty();
    }

    private void unprepareQuietly(DraDrivers.Claim claim, Set<String> driverNames) {
        for (String driver : driverNames) {
            try {
                drivers.unprepare(driver, List.of(claim));
            } catch (DraDrivers.DriverException e) {
                LOG.log(System.Logger.Level.WARNING, "unpreparing claim {0} on {1}: {2}", claim.name(), driver, e.getMessage());
            }
        }
    }

    @Override
    public void release(Pod pod) {
        String podUid = pod.getMetadata().getUid();
        for (String uid : List.copyOf(users.keySet())) {
            Set<String> pods = users.get(uid);
            if (!pods.remove(podUid) || !pods.isEmpty()) {
                continue;
            }
            users.remove(uid);
            PreparedClaim claim = prepared.remove(uid);
            if (claim == null) {
                continue;
            }
            for (String driver : claim.devicesByDriver().keySet()) {
                try {
                    drivers.unprepare(driver, List.of(claim.claim())).getOrDefault(uid, Optional.empty())
                            .ifPresent(error -> LOG.log(System.Logger.Level.WARNING, "NodeUnprepareResources of claim {0} on {1}: {2}",
                                    claim.claim().name(), driver, error));
                } catch (DraDrivers.DriverException e) {
                    LOG.log(System.Logger.Level.WARNING, "NodeUnprepareResources of claim {0} on {1}: {2}",
                            claim.claim().name(), driver, e.getMessage());
                }
            }
            LOG.log(System.Logger.Level.INFO, "unprepared claim {0}/{1}", claim.claim().namespace(), claim.claim().name());
        }
    }

    /** The UIDs of the claims prepared on the node now. */
    public Set<String> preparedClaims() {
        return Set.copyOf(prepared.keySet());
    }

    private static Admission failed(String message) {
        return new Admission.Waiting(FAILED_PREPARE, "Failed to prepare dynamic resources: " + message);
    }
}
