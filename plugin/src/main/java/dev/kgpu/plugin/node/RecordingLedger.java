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

/**
 * The ledger as it stands before its rules: it records every hold the front-ends make and the kubelet reports, and
 * refuses none, so both front-ends hand out GPUs as they did before it existed. The rules of who may share a unit with
 * whom, and when the device plugin's holds end, come with the DRA work (issue 22) on this same record.
 *
 * <p>Thread-safety: every method may be called from any thread; calls are atomic under one lock; listeners are
 * called after it is released, with the holds as they are then.
 */
public final class RecordingLedger implements AllocationLedger {

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    // guarded by lock
    private PhysicalUnits units = PhysicalUnits.NONE;
    /** The device plugin's holds by resource and device ID. */
    private final Map<String, DevicePluginHold> devicePlugin = new LinkedHashMap<>();
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
        lock.lock();
        try {
            for (String id : deviceIds) {
                units.ofDevicePluginId(id).ifPresent(unit -> devicePlugin.put(key(resource, id),
                        new DevicePluginHold(unit, resource, id, now, Source.ALLOCATE, Optional.empty())));
            }
        } finally {
            lock.unlock();
        }
        changed();
        return new Reservation.Granted();
    }

    @Override
    public Reservation reserveForClaim(ClaimRef claim, List<ClaimDevice> devices, Instant now) {
        record(claim, devices, now);
        return new Reservation.Granted();
    }

    @Override
    public void restoreClaim(ClaimRef claim, List<ClaimDevice> devices, Instant since) {
        record(claim, devices, since);
    }

    private void record(ClaimRef claim, List<ClaimDevice> devices, Instant since) {
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(since, "since");
        lock.lock();
        try {
            for (ClaimDevice device : devices) {
                claims.putIfAbsent(key(claim.uid(), device.name()),
                        new DraHold(device.unit(), claim, device.name(), since, device.adminAccess()));
            }
        } finally {
            lock.unlock();
        }
        changed();
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

    /** The kubelet's report replaces the holds learnt from the kubelet before; the device plugin's own Allocates stay. */
    @Override
    public void observe(KubeletAllocations allocations) {
        lock.lock();
        try {
            devicePlugin.values().removeIf(h -> h.source() != Source.ALLOCATE);
            for (KubeletAllocations.Allocation allocation : allocations.allocations()) {
                for (String id : allocation.deviceIds()) {
                    units.ofDevicePluginId(id).ifPresent(unit -> devicePlugin.put(key(allocation.resource(), id),
                            new DevicePluginHold(unit, allocation.resource(), id, allocations.listedAt(),
                                    allocations.source(), Optional.of(allocation.pod()))));
                }
            }
        } finally {
            lock.unlock();
        }
        changed();
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

    private View snapshot() {
        List<Hold> entries = new ArrayList<>(devicePlugin.values());
        entries.addAll(claims.values());
        List<Hold> frozen = List.copyOf(entries);
        return () -> frozen;
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
