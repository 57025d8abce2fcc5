package dev.kgpu.plugin.node;

import java.time.Instant;
import java.util.List;

/** {@link AllocationLedger#none()}: grants everything and records nothing. */
final class NoLedger implements AllocationLedger {

    static final NoLedger INSTANCE = new NoLedger();
    private static final View EMPTY = List::of;

    private NoLedger() {
    }

    @Override
    public void units(PhysicalUnits units) {
    }

    @Override
    public Reservation reserveForDevicePlugin(String resource, List<String> deviceIds, Instant now) {
        return new Reservation.Granted();
    }

    @Override
    public Reservation reserveForClaim(ClaimRef claim, List<ClaimDevice> devices, Instant now) {
        return new Reservation.Granted();
    }

    @Override
    public void releaseClaim(String claimUid) {
    }

    @Override
    public void restoreClaim(ClaimRef claim, List<ClaimDevice> devices, Instant since) {
    }

    @Override
    public void observe(KubeletAllocations allocations) {
    }

    @Override
    public View view() {
        return EMPTY;
    }

    @Override
    public void addListener(Listener listener) {
    }

    @Override
    public void removeListener(Listener listener) {
    }
}
