package dev.kgpu.plugin.deviceplugin.allocation;

import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Answers GetPreferredAllocation.
 *
 * <p>Whole GPUs (no MIG, no replicas): the set of {@code size} GPUs that contains every
 * {@code must_include} GPU and has the highest topology score, the sum over its pairs of
 * {@link dev.kgpu.plugin.devices.GpuLink#score()} (100 per NVLink plus NVIDIA's PCIe proximity score), so
 * NVLink-connected GPUs come before PCIe-only ones and, among those, the nearest on PCIe. Ties go to the set
 * that is least connected to the GPUs left behind (it keeps well-connected groups whole for later
 * requests), then to the lowest indices. Small searches are exhaustive; beyond
 * {@value #EXHAUSTIVE_LIMIT} candidate sets the set grows greedily by the best-connected GPU.
 *
 * <p>Replicas and MIG devices: NVIDIA's greedy policies over physical devices: {@code distributed} takes
 * the device with the fewest replicas in use (ties: fewest picked in this request, then index),
 * {@code packed} the one with the most.
 *
 * <p>Stateless and thread-safe.
 */
public final class PreferredAllocator {

    static final int EXHAUSTIVE_LIMIT = 20_000;

    private final NodeInventory inventory;
    private final SharedAllocationPolicy sharedPolicy;

    public PreferredAllocator(NodeInventory inventory, SharedAllocationPolicy sharedPolicy) {
        this.inventory = Objects.requireNonNull(inventory, "inventory");
        this.sharedPolicy = Objects.requireNonNull(sharedPolicy, "sharedPolicy");
    }

    public List<String> preferred(PluginResource resource, List<String> available, List<String> mustInclude, int size) {
        List<AdvertisedDevice> candidates = resolve(resource, available);
        List<AdvertisedDevice> required = resolve(resource, mustInclude);
        Set<String> availableIds = new LinkedHashSet<>(available);
        for (AdvertisedDevice device : required) {
            if (!availableIds.contains(device.id())) {
                throw new AllocationException.BadRequest("must_include device " + device.id()
                        + " of '" + resource.name() + "' is not among the available devices");
            }
        }
        if (size < required.size()) {
            throw new AllocationException.BadRequest("allocation size " + size + " of '" + resource.name()
                    + "' is smaller than the " + required.size() + " devices it must include");
        }
        if (candidates.size() < size) {
            throw new AllocationException.BadRequest("not enough available devices of '" + resource.name()
                    + "' to satisfy allocation: " + candidates.size() + " available, " + size + " requested");
        }
        if (size == candidates.size()) {
            return candidates.stream().map(AdvertisedDevice::id).toList();
        }
        boolean wholeGpus = resource.devices().stream().allMatch(d -> !d.isReplica() && d.device() instanceof Gpu);
        return wholeGpus ? byTopology(candidates, required, size) : byReplicaPolicy(resource, candidates, required, size);
    }

    private static List<AdvertisedDevice> resolve(PluginResource resource, List<String> ids) {
        Map<String, AdvertisedDevice> unique = new LinkedHashMap<>();
        for (String id : ids) {
            unique.put(id, resource.device(id).orElseThrow(() -> new AllocationException.UnknownDevice(resource.name(), id)));
        }
        return List.copyOf(unique.values());
    }

    // ---------------------------------------------------------------------------------------------
    // whole GPUs: topology

    private List<String> byTopology(List<AdvertisedDevice> candidates, List<AdvertisedDevice> required, int size) {
        List<AdvertisedDevice> sorted = new ArrayList<>(candidates);
        sorted.sort(Comparator.comparingInt(d -> d.device().gpuIndex()));
        List<AdvertisedDevice> free = sorted.stream().filter(d -> !required.contains(d)).toList();
        int toPick = size - required.size();
        int n = free.size();
        int[][] score = pairScores(sorted);
        Map<AdvertisedDevice, Integer> position = new HashMap<>();
        for (int i = 0; i < sorted.size(); i++) {
            position.put(sorted.get(i), i);
        }
        int[] requiredPos = required.stream().mapToInt(position::get).toArray();
        int[] freePos = free.stream().mapToInt(position::get).toArray();

        int[] best;
        if (combinations(n, toPick) <= EXHAUSTIVE_LIMIT) {
            best = exhaustive(score, requiredPos, freePos, toPick, sorted.size());
        } else {
            best = greedy(score, requiredPos, freePos, toPick);
        }
        List<String> result = new ArrayList<>();
        required.forEach(d -> result.add(d.id()));
        for (int p : best) {
            result.add(sorted.get(p).id());
        }
        return result;
    }

    private int[][] pairScores(List<AdvertisedDevice> devices) {
        int n = devices.size();
        int[][] score = new int[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                int s = inventory.link(devices.get(i).uuid(), devices.get(j).uuid()).score();
                score[i][j] = s;
                score[j][i] = s;
            }
        }
        return score;
    }

    private static int[] exhaustive(int[][] score, int[] required, int[] free, int toPick, int total) {
        int[] chosen = new int[toPick];
        int[] best = null;
        long bestScore = Long.MIN_VALUE;
        long bestLeak = Long.MAX_VALUE;
        int[] index = new int[toPick];
        for (int i = 0; i < toPick; i++) {
            index[i] = i;
        }
        while (true) {
            for (int i = 0; i < toPick; i++) {
                chosen[i] = free[index[i]];
            }
            long setScore = setScore(score, required, chosen);
            long leak = leak(score, required, chosen, total);
            if (setScore > bestScore || (setScore == bestScore && leak < bestLeak)) {
                bestScore = setScore;
                bestLeak = leak;
                best = chosen.clone();
            }
            int i = toPick - 1;
            while (i >= 0 && index[i] == free.length - toPick + i) {
                i--;
            }
            if (i < 0) {
                break;
            }
            index[i]++;
            for (int j = i + 1; j < toPick; j++) {
                index[j] = index[j - 1] + 1;
            }
        }
        return best == null ? new int[0] : best;
    }

    private static int[] greedy(int[][] score, int[] required, int[] free, int toPick) {
        List<Integer> set = new ArrayList<>();
        for (int r : required) {
            set.add(r);
        }
        Set<Integer> left = new LinkedHashSet<>();
        for (int f : free) {
            left.add(f);
        }
        int[] picked = new int[toPick];
        for (int k = 0; k < toPick; k++) {
            int bestCandidate = -1;
            long bestGain = Long.MIN_VALUE;
            for (int candidate : left) {
                long gain = 0;
                for (int member : set) {
                    gain += score[candidate][member];
                }
                if (set.isEmpty()) {
                    // seed with the GPU that has the best single partner
                    for (int other : left) {
                        if (other != candidate) {
                            gain = Math.max(gain, score[candidate][other]);
                        }
                    }
                }
                if (gain > bestGain) {
                    bestGain = gain;
                    bestCandidate = candidate;
                }
            }
            picked[k] = bestCandidate;
            set.add(bestCandidate);
            left.remove(bestCandidate);
        }
        return picked;
    }

    private static long setScore(int[][] score, int[] required, int[] chosen) {
        long total = 0;
        int[] all = concat(required, chosen);
        for (int i = 0; i < all.length; i++) {
            for (int j = i + 1; j < all.length; j++) {
                total += score[all[i]][all[j]];
            }
        }
        return total;
    }

    /** How strongly the set is tied to the GPUs outside it: lower keeps the rest better connected. */
    private static long leak(int[][] score, int[] required, int[] chosen, int total) {
        boolean[] inSet = new boolean[total];
        for (int p : concat(required, chosen)) {
            inSet[p] = true;
        }
        long leak = 0;
        for (int i = 0; i < total; i++) {
            if (!inSet[i]) {
                continue;
            }
            for (int j = 0; j < total; j++) {
                if (!inSet[j]) {
                    leak += score[i][j];
                }
            }
        }
        return leak;
    }

    private static int[] concat(int[] a, int[] b) {
        int[] all = new int[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static long combinations(int n, int k) {
        long c = 1;
        for (int i = 0; i < k; i++) {
            c = c * (n - i) / (i + 1);
            if (c > EXHAUSTIVE_LIMIT) {
                return c;
            }
        }
        return c;
    }

    // ---------------------------------------------------------------------------------------------
    // replicas and MIG devices

    private List<String> byReplicaPolicy(PluginResource resource, List<AdvertisedDevice> candidates,
                                         List<AdvertisedDevice> required, int size) {
        Map<String, Integer> total = new HashMap<>();
        resource.devices().forEach(d -> total.merge(d.uuid(), 1, Integer::sum));
        Map<String, PhysicalState> byDevice = new LinkedHashMap<>();
        List<AdvertisedDevice> sorted = new ArrayList<>(candidates);
        sorted.sort(Comparator.comparingInt((AdvertisedDevice d) -> d.device().gpuIndex())
                .thenComparing(AdvertisedDevice::uuid)
                .thenComparingInt(d -> d.replica().orElse(0)));
        for (AdvertisedDevice device : sorted) {
            PhysicalState state = byDevice.computeIfAbsent(device.uuid(),
                    u -> new PhysicalState(u, device.device().gpuIndex(), total.get(u)));
            state.available++;
            if (!required.contains(device)) {
                state.free.add(device);
            }
        }
        for (AdvertisedDevice device : required) {
            byDevice.get(device.uuid()).pickedFrom++;
        }
        Comparator<PhysicalState> order = switch (sharedPolicy) {
            case DISTRIBUTED -> Comparator.comparingInt(PhysicalState::allocated);
            case PACKED -> Comparator.comparingInt(PhysicalState::allocated).reversed();
        };
        order = order.thenComparingInt(s -> s.pickedFrom).thenComparingInt(s -> s.gpuIndex).thenComparing(s -> s.uuid);
        List<String> result = new ArrayList<>();
        required.forEach(d -> result.add(d.id()));
        int needed = size - required.size();
        for (int k = 0; k < needed; k++) {
            PhysicalState top = byDevice.values().stream().filter(s -> !s.free.isEmpty()).min(order).orElseThrow();
            AdvertisedDevice pick = top.free.removeFirst();
            top.available--;
            top.pickedFrom++;
            result.add(pick.id());
        }
        return result;
    }

    private static final class PhysicalState {
        final String uuid;
        final int gpuIndex;
        final int total;
        int available;
        int pickedFrom;
        final List<AdvertisedDevice> free = new ArrayList<>();

        PhysicalState(String uuid, int gpuIndex, int total) {
            this.uuid = uuid;
            this.gpuIndex = gpuIndex;
            this.total = total;
        }

        int allocated() {
            return total - available;
        }
    }
}
