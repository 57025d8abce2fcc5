package dev.kgpu.plugin.node;

import dev.kgpu.plugin.node.AllocationLedger.Hold.DevicePluginHold;
import dev.kgpu.plugin.node.AllocationLedger.Hold.DraHold;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The node's {@link AllocationLedger}: one unit goes to one holder at a time.
 * <ul>
 *   <li>A claim is refused a device another claim holds (NVIDIA's driver refuses the same since v25.12,
 *       kubernetes#136269: scheduler races, force-deleted pods), unless either asked for admin access; the same claim
 *       again is granted (a kubelet repeats calls).</li>
 *   <li>A claim is refused a device the device plugin holds, and the device plugin's Allocate is refused a device a
 *       claim holds. Device-plugin holds refuse claims only once the kubelet reported its allocations
 *       ({@link #observe}): before, nothing could ever end them. Device-plugin holds do not exclude each other: the kubelet keeps its own devices apart, and
 *       replicas of a time-sliced GPU share it on purpose.</li>
 *   <li>A GPU conflicts with its MIG devices ({@link DeviceUnit#conflicts}).</li>
 *   <li>A refusal records nothing; a grant records every device of the request.</li>
 *   <li>The device plugin's own Allocate is held at once ({@link Source#ALLOCATE}, no pod known: the kubelet's
 *       Allocate names none). The kubelet's report ({@link #observe}) replaces what an earlier report said: an
 *       allocation it lists is held with its pod; one it no longer lists ends. An Allocate it has not listed yet is
 *       kept until a report listed at least {@link #PROVISIONAL_GRACE} after it still lacks it (the kubelet rejected the
 *       pod after the answer, or the pod already ended): the kubelet records an allocation right after the answer, so
 *       a report that old would show it.</li>
 *   <li>A restored claim (the checkpoint at start) is recorded, never refused.</li>
 * </ul>
 *
 * <p>Thread-safety: every method may be called from any thread; calls are atomic under one lock; listeners are
 * called after it is released, with the holds as they are then.
 */
public final class ExclusiveLedger implements AllocationLedger {

    /** How long after the device plugin's Allocate a kubelet report must be before its absence there ends the hold. */
    public static final java.time.Duration PROVISIONAL_GRACE = java.time.Duration.ofSeconds(5);

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    // guarded by lock
    private PhysicalUnits units = PhysicalUnits.NONE;
    /** The device plugin's holds by resource and device ID. */
    private final Map<String, DevicePluginHold> devicePlugin = new LinkedHashMap<>();
    /** Whether the kubelet reported its allocations at least once: only then can a device-plugin hold end. */
    private boolean reported;
    /** Claims' holds by claim UID and device name. */
    private final Map<String, DraHold> claims = new LinkedHashMap<>();

    @Override
    public void units(PhysicalUnits next) {
        Objects.requireNonNull(next, "next");
        lock.lock();
        try {
            units = next;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Reservation reserveForDevicePlugin(String resource, List<String> deviceIds, Instant now) {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(now, "now");
        Map<String, DeviceUnit> asked = new LinkedHashMap<>();
        return reserve(() -> {
            List<Conflict> conflicts = new ArrayList<>();
            for (String id : deviceIds) {
                units.ofDevicePluginId(id).ifPresent(unit -> {
                    asked.put(id, unit);
                    claims.values().stream().filter(h -> !h.adminAccess() && h.unit().conflicts(unit)).findFirst()
                            .ifPresent(h -> conflicts.add(new Conflict(unit, h)));
                });
            }
            return conflicts;
        }, () -> asked.forEach((id, unit) -> devicePlugin.put(key(resource, id),
                new DevicePluginHold(unit, resource, id, now, Source.ALLOCATE, Optional.empty()))));
    }

    @Override
    public Reservation reserveForClaim(ClaimRef claim, List<ClaimDevice> devices, Instant now) {
        Objects.requireNonNull(claim, "claim");
        return reserve(() -> {
            List<Conflict> conflicts = new ArrayList<>();
            for (ClaimDevice device : devices) {
                if (device.adminAccess()) {
                    continue;
                }
                List<Hold> others = new ArrayList<>(claims.values().stream()
                        .filter(h -> !h.adminAccess() && !h.claim().uid().equals(claim.uid()) && h.unit().conflicts(device.unit()))
                        .toList());
                if (reported) {
                    devicePlugin.values().stream().filter(h -> h.unit().conflicts(device.unit())).forEach(others::add);
                }
                others.stream().findFirst().ifPresent(h -> conflicts.add(new Conflict(device.unit(), h)));
            }
            return conflicts;
        }, () -> put(claim, devices, now));
    }

    /**
     * The skeleton of both reservations: under the lock, {@code conflicts} lists what the request collides with; none
     * records it ({@code record}), any refuses it and records nothing. Listeners hear of a grant after the lock.
     */
    private Reservation reserve(Supplier<List<Conflict>> conflicts, Runnable record) {
        lock.lock();
        try {
            List<Conflict> found = conflicts.get();
            if (!found.isEmpty()) {
                return new Reservation.Refused(found);
            }
            record.run();
        } finally {
            lock.unlock();
        }
        changed();
        return new Reservation.Granted();
    }

    @Override
    public void restoreClaim(ClaimRef claim, List<ClaimDevice> devices, Instant since) {
        Objects.requireNonNull(claim, "claim");
        lock.lock();
        try {
            put(claim, devices, since);
        } finally {
            lock.unlock();
        }
        changed();
    }

    /** Under the lock: records {@code claim}'s holds (a device it holds already keeps its first time). */
    private void put(ClaimRef claim, List<ClaimDevice> devices, Instant since) {
        Objects.requireNonNull(since, "since");
        for (ClaimDevice device : devices) {
            claims.putIfAbsent(key(claim.uid(), device.name()),
                    new DraHold(device.unit(), claim, device.name(), since, device.adminAccess()));
        }
    }

    @Override
    public void releaseClaim(String claimUid) {
        boolean released;
        lock.lock();
        try {
            released = claims.values().removeIf(h -> h.claim().uid().equals(claimUid));
        } finally {
            lock.unlock();
        }
        if (released) {
            changed();
        }
    }

    /**
     * The kubelet's report replaces the holds it reported before; the device plugin's own Allocates it lists become its
     * pods', those it does not list end once the report is {@link #PROVISIONAL_GRACE} newer than them.
     */
    @Override
    public void observe(KubeletAllocations allocations) {
        boolean changedAny;
        lock.lock();
        try {
            Map<String, DevicePluginHold> before = new LinkedHashMap<>(devicePlugin);
            reported = true;
            Instant listed = allocations.listedAt();
            devicePlugin.values().removeIf(h -> h.source() != Source.ALLOCATE
                    || !listed.isBefore(h.since().plus(PROVISIONAL_GRACE)));
            for (KubeletAllocations.Allocation allocation : allocations.allocations()) {
                for (String id : allocation.deviceIds()) {
                    String key = key(allocation.resource(), id);
                    // held since the Allocate, or since the first report of the same pod
                    Instant since = Optional.ofNullable(before.get(key))
                            .filter(h -> h.pod().isEmpty() || h.pod().equals(Optional.of(allocation.pod())))
                            .map(DevicePluginHold::since).orElse(listed);
                    units.ofDevicePluginId(id).ifPresent(unit -> devicePlugin.put(key,
                            new DevicePluginHold(unit, allocation.resource(), id, since,
                                    allocations.source(), Optional.of(allocation.pod()))));
                }
            }
            changedAny = !before.equals(devicePlugin);
        } finally {
            lock.unlock();
        }
        if (changedAny) {
            changed();
        }
    }

    @Override
    public View view() {
        lock.lock();
        try {
            return snapshot();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void addListener(Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    private View snapshot() {
        List<Hold> entries = new ArrayList<>(devicePlugin.values());
        entries.addAll(claims.values());
        List<Hold> frozen = List.copyOf(entries);
        boolean counted = reported;
        return new View() {
            @Override
            public List<Hold> entries() {
                return frozen;
            }

            /** Until the kubelet reported once, nothing could end a device-plugin hold: it counts for nothing. */
            @Override
            public boolean heldByDevicePlugin(DeviceUnit unit) {
                return counted && View.super.heldByDevicePlugin(unit);
            }
        };
    }

    /** Tells the listeners, outside the lock, the holds as they are now (a later change is told again). */
    private void changed() {
        if (listeners.isEmpty()) {
            return;
        }
        View now = view();
        listeners.forEach(l -> l.ledgerChanged(now));
    }

    private static String key(String owner, String name) {
        return owner + "\u0000" + name;
    }
}
