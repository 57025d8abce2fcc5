package dev.kgpu.plugin.testing;

import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.ClaimRef;
import dev.kgpu.plugin.node.PhysicalUnits;
import dev.kgpu.plugin.node.ExclusiveLedger;

import java.time.Instant;
import java.util.List;

/**
 * A ledger in which {@code holder} holds one unit: every reservation that touches it (or a unit it conflicts with) is
 * refused, naming the holder, and the rest is recorded as the {@link ExclusiveLedger} records it. Stands in for the
 * rules the ledger will have, to test what each front-end does with a refusal.
 */
public final class RefusingLedger implements AllocationLedger {

    private final ExclusiveLedger recorded = new ExclusiveLedger();
    private final Hold holder;
    private volatile PhysicalUnits units = PhysicalUnits.NONE;

    public RefusingLedger(Hold holder) {
        this.holder = holder;
    }

    @Override
    public void units(PhysicalUnits next) {
        this.units = next;
        recorded.units(next);
    }

    @Override
    public Reservation reserveForDevicePlugin(String resource, List<String> deviceIds, Instant now) {
        List<Conflict> conflicts = deviceIds.stream().flatMap(id -> units.ofDevicePluginId(id).stream())
                .filter(unit -> unit.conflicts(holder.unit())).map(unit -> new Conflict(unit, holder)).toList();
        return conflicts.isEmpty() ? recorded.reserveForDevicePlugin(resource, deviceIds, now) : new Reservation.Refused(conflicts);
    }

    @Override
    public Reservation reserveForClaim(ClaimRef claim, List<ClaimDevice> devices, Instant now) {
        List<Conflict> conflicts = devices.stream().filter(d -> d.unit().conflicts(holder.unit()))
                .map(d -> new Conflict(d.unit(), holder)).toList();
        return conflicts.isEmpty() ? recorded.reserveForClaim(claim, devices, now) : new Reservation.Refused(conflicts);
    }

    @Override
    public void releaseClaim(String claimUid) {
        recorded.releaseClaim(claimUid);
    }

    @Override
    public void restoreClaim(ClaimRef claim, List<ClaimDevice> devices, Instant since) {
        recorded.restoreClaim(claim, devices, since);
    }

    @Override
    public void observe(KubeletAllocations allocations) {
        recorded.observe(allocations);
    }

    @Override
    public View view() {
        return recorded.view();
    }

    @Override
    public void addListener(Listener listener) {
        recorded.addListener(listener);
    }

    @Override
    public void removeListener(Listener listener) {
        recorded.removeListener(listener);
    }
}
