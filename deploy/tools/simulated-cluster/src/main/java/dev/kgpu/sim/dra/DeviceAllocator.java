package dev.kgpu.sim.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * kube-scheduler's structured-parameters allocator for one node ({@code k8s.io/dynamic-resource-allocation/structured}):
 * picks devices for the requests of a pod's unallocated ResourceClaims, all of them or none, from the devices the
 * node's ResourceSlices offer.
 *
 * <ul>
 *   <li>A device fits a request when every selector of the request's DeviceClass and every selector of the request
 *       is true for it ({@link DeviceCel}), its {@code NoSchedule}/{@code NoExecute} taints are tolerated, and it is
 *       allocated to no other claim (unless the request asks for {@code adminAccess}) nor picked for another request
 *       here.</li>
 *   <li>{@code exactly} with {@code allocationMode: ExactCount} takes {@code count} devices (default 1); with
 *       {@code All}, every device of the node that matches, which fails when there is none or one is in use;
 *       {@code firstAvailable} takes the first subrequest that can be satisfied (the result's request is
 *       {@code <request>/<subrequest>}).</li>
 *   <li>A claim's {@code constraints}: {@code matchAttribute} (every device picked for the requests named, or for all
 *       of them, has the attribute with one value) and {@code distinctAttribute} (all values differ).</li>
 *   <li>Devices are tried in slice order and the search backtracks, so a constraint or a later request that an
 *       earlier choice would block is still met when some choice meets it.</li>
 * </ul>
 *
 * Not modelled: consumable capacity ({@code capacity.requests}, {@code allowMultipleAllocations}), shared counters
 * (partitionable devices), binding conditions, per-device node selection.
 *
 * <p>Immutable; each call is independent.
 */
public final class DeviceAllocator {

    /** Kubernetes' limit on the results of one claim ({@code AllocationResultsMaxSize}). */
    static final int MAX_RESULTS = 32;

    private final List<SliceDevice> devices;
    private final Set<SliceDevice.Id> inUse;
    private final Function<String, Optional<DeviceClass>> classes;

    /**
     * @param devices what the node's slices offer, in slice order
     * @param inUse   devices allocated to claims other than those being allocated
     * @param classes DeviceClasses by name
     */
    public DeviceAllocator(List<SliceDevice> devices, Set<SliceDevice.Id> inUse, Function<String, Optional<DeviceClass>> classes) {
        this.devices = List.copyOf(devices);
        this.inUse = Set.copyOf(inUse);
        this.classes = classes;
    }

    /** What became of an allocation. */
    public sealed interface Outcome {

        /** Every claim's results, by {@code <namespace>/<name>}, in request order. */
        record Allocated(Map<String, List<DeviceRequestAllocationResult>> results) implements Outcome {
            public Allocated {
                results = Map.copyOf(results);
            }
        }

        /** The devices do not satisfy the claims: the scheduler's {@code cannot allocate all claims}. */
        record Unsatisfiable() implements Outcome {
        }

        /** A claim cannot be allocated anywhere: a DeviceClass missing, a selector that fails to compile or evaluate. */
        record Failed(String reason) implements Outcome {
        }
    }

    /** Allocates {@code claims} together. */
    public Outcome allocate(List<ResourceClaim> claims) {
        List<Slot> slots = new ArrayList<>();
        try {
            for (ResourceClaim claim : claims) {
                String key = key(claim);
                var spec = claim.getSpec() == null ? null : claim.getSpec().getDevices();
                if (spec == null || spec.getRequests() == null) {
                    continue;
                }
                List<DeviceConstraint> constraints = spec.getConstraints() == null ? List.of() : spec.getConstraints();
                for (DeviceRequest request : spec.getRequests()) {
                    slots.add(new Slot(key, request.getName(), alternatives(key, request), constraints));
                }
            }
        } catch (Problem problem) {
            return new Outcome.Failed(problem.getMessage());
        }
        Search search = new Search(slots);
        try {
            if (!search.place(0)) {
                return new Outcome.Unsatisfiable();
            }
        } catch (Problem problem) {
            return new Outcome.Failed(problem.getMessage());
        }
        Map<String, List<DeviceRequestAllocationResult>> results = new LinkedHashMap<>();
        claims.forEach(c -> results.put(key(c), new ArrayList<>()));
        for (Pick pick : search.picks) {
            DeviceRequestAllocationResultBuilder result = new DeviceRequestAllocationResultBuilder()
                    .withRequest(pick.request()).withDriver(pick.device().driver()).withPool(pick.device().pool())
                    .withDevice(pick.device().name());
            if (pick.alternative().adminAccess()) {
                result.withAdminAccess(true);
            }
            if (!pick.alternative().tolerations().isEmpty()) {
                result.withTolerations(pick.alternative().tolerations());
            }
            results.get(pick.claim()).add(result.build());
        }
        for (var entry : results.entrySet()) {
            if (entry.getValue().size() > MAX_RESULTS) {
                return new Outcome.Failed("claim " + entry.getKey() + ": " + entry.getValue().size()
                        + " devices, more than the " + MAX_RESULTS + " one claim may have");
            }
        }
        return new Outcome.Allocated(results);
    }

    static String key(ResourceClaim claim) {
        return claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
    }

    // ---------------------------------------------------------------------------------------------------------

    /** One way to satisfy a request: {@code exactly}, or one subrequest of {@code firstAvailable}. */
    private record Alternative(String resultName, String className, List<DeviceCel.Selector> classSelectors,
                               List<DeviceCel.Selector> selectors, boolean all, long count, boolean adminAccess,
                               List<DeviceToleration> tolerations, String context) {
    }

    /** A request of a claim to place. */
    private record Slot(String claim, String request, List<Alternative> alternatives, List<DeviceConstraint> constraints) {
    }

    /** A device picked for a request. */
    private record Pick(String claim, String request, String mainRequest, SliceDevice device, Alternative alternative) {
    }

    /** A claim that cannot be allocated on any node, in words. */
    private static final class Problem extends RuntimeException {
        Problem(String message) {
            super(message, null, false, false);
        }
    }

    private List<Alternative> alternatives(String claim, DeviceRequest request) {
        String context = "claim " + claim + ", request " + request.getName();
        if (request.getExactly() != null) {
            ExactDeviceRequest exactly = request.getExactly();
            return List.of(alternative(request.getName(), context, exactly.getDeviceClassName(), exactly.getSelectors(),
                    exactly.getAllocationMode(), exactly.getCount(), Boolean.TRUE.equals(exactly.getAdminAccess()),
                    exactly.getTolerations()));
        }
        if (request.getFirstAvailable() != null && !request.getFirstAvailable().isEmpty()) {
            List<Alternative> alternatives = new ArrayList<>();
            for (DeviceSubRequest sub : request.getFirstAvailable()) {
                alternatives.add(alternative(request.getName() + "/" + sub.getName(), context + "/" + sub.getName(),
                        sub.getDeviceClassName(), sub.getSelectors(), sub.getAllocationMode(), sub.getCount(), false,
                        sub.getTolerations()));
            }
            return alternatives;
        }
        throw new Problem(context + ": has neither exactly nor firstAvailable");
    }

    private Alternative alternative(String resultName, String context, String className, List<DeviceSelector> selectors,
                                    String mode, Long count, boolean adminAccess, List<DeviceToleration> tolerations) {
        if (className == null || className.isEmpty()) {
            throw new Problem(context + ": deviceClassName is required");
        }
        DeviceClass deviceClass = classes.apply(className).orElseThrow(() ->
                new Problem(context + ": could not retrieve device class " + className + ": deviceclass.resource.k8s.io \""
                        + className + "\" not found"));
        List<DeviceCel.Selector> classSelectors = compile(context + ": class " + className,
                deviceClass.getSpec() == null ? null : deviceClass.getSpec().getSelectors());
        boolean all = "All".equals(mode);
        if (mode != null && !all && !"ExactCount".equals(mode)) {
            throw new Problem(context + ": allocationMode was '" + mode + "' but it must be ExactCount or All");
        }
        long n = all ? 0 : count == null ? 1 : count;
        if (!all && n < 1) {
            throw new Problem(context + ": count was '" + n + "' but it must be at least 1");
        }
        return new Alternative(resultName, className, classSelectors, compile(context, selectors), all, n, adminAccess,
                tolerations == null ? List.of() : List.copyOf(tolerations), context);
    }

    private static List<DeviceCel.Selector> compile(String context, List<DeviceSelector> selectors) {
        List<DeviceCel.Selector> compiled = new ArrayList<>();
        if (selectors != null) {
            for (int i = 0; i < selectors.size(); i++) {
                DeviceSelector selector = selectors.get(i);
                if (selector.getCel() == null || selector.getCel().getExpression() == null) {
                    throw new Problem(context + ": selector #" + i + ": has no cel expression");
                }
                try {
                    compiled.add(DeviceCel.environment().compile(selector.getCel().getExpression()));
                } catch (DeviceCel.SelectorException e) {
                    throw new Problem(context + ": selector #" + i + ": " + e.getMessage());
                }
            }
        }
        return compiled;
    }

    /** The backtracking search over slots, devices in slice order. */
    private final class Search {
        private final List<Slot> slots;
        private final List<Pick> picks = new ArrayList<>();
        private final Set<SliceDevice.Id> picked = new HashSet<>();
        /** Whether a device matches an alternative's selectors and tolerations (in use or not), evaluated once. */
        private final Map<Alternative, Map<SliceDevice.Id, Boolean>> matches = new HashMap<>();

        Search(List<Slot> slots) {
            this.slots = slots;
        }

        boolean place(int slot) {
            if (slot == slots.size()) {
                return true;
            }
            Slot current = slots.get(slot);
            for (Alternative alternative : current.alternatives()) {
                List<SliceDevice> matching = devices.stream().filter(d -> matches(alternative, d)).toList();
                if (alternative.all()) {
                    if (matching.isEmpty() || matching.stream().anyMatch(d -> !available(alternative, d))) {
                        continue;
                    }
                    int mark = picks.size();
                    boolean fits = true;
                    for (SliceDevice device : matching) {
                        if (!add(current, alternative, device)) {
                            fits = false;
                            break;
                        }
                    }
                    if (fits && place(slot + 1)) {
                        return true;
                    }
                    undo(mark);
                } else {
                    List<SliceDevice> candidates = matching.stream().filter(d -> available(alternative, d)).toList();
                    if (choose(slot, current, alternative, candidates, 0, alternative.count())) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** Picks {@code need} more devices from {@code candidates[from..]}, then places the next slots. */
        private boolean choose(int slot, Slot current, Alternative alternative, List<SliceDevice> candidates, int from, long need) {
            if (need == 0) {
                return place(slot + 1);
            }
            for (int i = from; i <= candidates.size() - need; i++) {
                SliceDevice device = candidates.get(i);
                if (picked.contains(device.id()) && !alternative.adminAccess()) {
                    continue;
                }
                int mark = picks.size();
                if (add(current, alternative, device) && choose(slot, current, alternative, candidates, i + 1, need - 1)) {
                    return true;
                }
                undo(mark);
            }
            return false;
        }

        private boolean add(Slot slot, Alternative alternative, SliceDevice device) {
            Pick pick = new Pick(slot.claim(), alternative.resultName(), slot.request(), device, alternative);
            if (!satisfiesConstraints(slot, pick)) {
                return false;
            }
            picks.add(pick);
            picked.add(device.id());
            return true;
        }

        private void undo(int mark) {
            while (picks.size() > mark) {
                picked.remove(picks.removeLast().device().id());
            }
        }

        private boolean available(Alternative alternative, SliceDevice device) {
            return alternative.adminAccess() || !inUse.contains(device.id()) && !picked.contains(device.id());
        }

        private boolean matches(Alternative alternative, SliceDevice device) {
            return matches.computeIfAbsent(alternative, a -> new HashMap<>()).computeIfAbsent(device.id(), id -> {
                if (!tolerated(device.taints(), alternative.tolerations())) {
                    return false;
                }
                return all(alternative.context() + ": class " + alternative.className(), alternative.classSelectors(), device)
                        && all(alternative.context(), alternative.selectors(), device);
            });
        }

        private static boolean all(String context, List<DeviceCel.Selector> selectors, SliceDevice device) {
            for (int i = 0; i < selectors.size(); i++) {
                try {
                    if (!selectors.get(i).matches(device)) {
                        return false;
                    }
                } catch (DeviceCel.SelectorException e) {
                    throw new Problem(context + ": selector #" + i + ": device " + device.id() + ": " + e.getMessage());
                }
            }
            return true;
        }

        private boolean satisfiesConstraints(Slot slot, Pick pick) {
            for (DeviceConstraint constraint : slot.constraints()) {
                if (!applies(constraint, pick)) {
                    continue;
                }
                List<Pick> others = picks.stream().filter(p -> p.claim().equals(pick.claim()) && applies(constraint, p)).toList();
                if (constraint.getMatchAttribute() != null) {
                    Optional<Object> value = pick.device().attribute(constraint.getMatchAttribute());
                    if (value.isEmpty() || others.stream().anyMatch(o ->
                            !o.device().attribute(constraint.getMatchAttribute()).equals(value))) {
                        return false;
                    }
                }
                if (constraint.getDistinctAttribute() != null) {
                    Optional<Object> value = pick.device().attribute(constraint.getDistinctAttribute());
                    if (value.isEmpty() || others.stream().anyMatch(o ->
                            o.device().attribute(constraint.getDistinctAttribute()).equals(value))) {
                        return false;
                    }
                }
            }
            return true;
        }

        private static boolean applies(DeviceConstraint constraint, Pick pick) {
            List<String> requests = constraint.getRequests();
            return requests == null || requests.isEmpty() || requests.contains(pick.mainRequest())
                    || requests.contains(pick.request());
        }
    }

    /** Whether every {@code NoSchedule}/{@code NoExecute} taint is tolerated ({@code None} taints never block). */
    static boolean tolerated(List<DeviceTaint> taints, List<DeviceToleration> tolerations) {
        for (DeviceTaint taint : taints) {
            if (!"NoSchedule".equals(taint.getEffect()) && !"NoExecute".equals(taint.getEffect())) {
                continue;
            }
            boolean tolerates = tolerations.stream().anyMatch(t -> tolerates(t, taint));
            if (!tolerates) {
                return false;
            }
        }
        return true;
    }

    private static boolean tolerates(DeviceToleration toleration, DeviceTaint taint) {
        if (toleration.getEffect() != null && !toleration.getEffect().isEmpty() && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        boolean exists = "Exists".equals(toleration.getOperator());
        if (toleration.getKey() == null || toleration.getKey().isEmpty()) {
            return exists;
        }
        if (!toleration.getKey().equals(taint.getKey())) {
            return false;
        }
        return exists || Objects.equals(Objects.requireNonNullElse(toleration.getValue(), ""),
                Objects.requireNonNullElse(taint.getValue(), ""));
    }
}
