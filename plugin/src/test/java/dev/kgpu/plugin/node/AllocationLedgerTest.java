package dev.kgpu.plugin.node;

import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.node.AllocationLedger.ClaimDevice;
import dev.kgpu.plugin.node.AllocationLedger.Hold.DevicePluginHold;
import dev.kgpu.plugin.node.AllocationLedger.Hold.DraHold;
import dev.kgpu.plugin.node.AllocationLedger.KubeletAllocations;
import dev.kgpu.plugin.node.AllocationLedger.Source;
import dev.kgpu.plugin.testing.Devices;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The allocation ledger's units (a GPU conflicts with its MIG devices, replica and index IDs name their device) and
 * its rules: one unit, one holder (claims among themselves unless admin access, claims against the device plugin);
 * the device plugin's holds follow what the kubelet reports.
 */
class AllocationLedgerTest {

    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    static final String GPU = "nvidia.com/gpu";
    final Gpu gpu0 = Devices.gpu(0);
    final Gpu mig1 = Devices.migGpu(1, "3g.40gb", "1g.10gb");
    final NodeInventory inventory = NodeInventory.withoutTopology(List.of(gpu0, mig1));
    final PhysicalUnits units = PhysicalUnits.of(inventory);
    final DeviceUnit whole0 = DeviceUnit.of(gpu0);
    final DeviceUnit whole1 = DeviceUnit.of(mig1);
    final DeviceUnit migA = DeviceUnit.of(mig1.migDevices().get(0));
    final DeviceUnit migB = DeviceUnit.of(mig1.migDevices().get(1));
    final ClaimRef claim = new ClaimRef("ml", "training", "uid-1");

    @Test
    void aGpuConflictsWithItselfAndItsMigDevicesButMigDevicesNotWithEachOther() {
        assertThat(migA.parent()).contains(mig1.uuid());
        assertThat(whole1.conflicts(whole1)).isTrue();
        assertThat(whole1.conflicts(migA)).isTrue();
        assertThat(migB.conflicts(whole1)).isTrue();
        assertThat(migA.conflicts(migB)).isFalse();
        assertThat(whole0.conflicts(whole1)).isFalse();
        assertThat(whole0.conflicts(migA)).isFalse();
    }

    @Test
    void deviceIdsOfTheDevicePluginNameTheirUnitAsUuidReplicaOrIndex() {
        assertThat(units.ofDevicePluginId(gpu0.uuid())).contains(whole0);
        assertThat(units.ofDevicePluginId(gpu0.uuid() + "::3")).as("a time-slicing replica").contains(whole0);
        assertThat(units.ofDevicePluginId("0")).as("deviceIDStrategy: index").contains(whole0);
        assertThat(units.ofDevicePluginId(mig1.migDevices().get(1).uuid())).contains(migB);
        assertThat(units.ofDevicePluginId("1:1")).contains(migB);
        assertThat(units.ofDevicePluginId("GPU-elsewhere")).isEmpty();
        assertThat(units.ofDevicePluginId("7")).isEmpty();
        assertThat(units.ofUuid(mig1.uuid())).contains(whole1);
        assertThat(units.all()).containsExactly(whole0, whole1, migA, migB);
        assertThat(PhysicalUnits.NONE.ofDevicePluginId(gpu0.uuid())).isEmpty();
    }

    @Test
    void theDevicePluginsAllocatesAreHeldUntilTheKubeletReportsThemWithTheirPods() {
        ExclusiveLedger ledger = new ExclusiveLedger();
        ledger.units(units);

        assertThat(ledger.reserveForDevicePlugin(GPU, List.of(gpu0.uuid() + "::0", "GPU-elsewhere"), NOW))
                .isEqualTo(new AllocationLedger.Reservation.Granted());
        assertThat(ledger.view().entries()).as("an ID of no device here holds nothing").containsExactly(
                new DevicePluginHold(whole0, GPU, gpu0.uuid() + "::0", NOW, Source.ALLOCATE, Optional.empty()));

        KubeletAllocations.Pod pod = new KubeletAllocations.Pod("ml", "cuda-demo", "pod-uid");
        ledger.observe(new KubeletAllocations(NOW.plusSeconds(1), Source.POD_RESOURCES, List.of(
                new KubeletAllocations.Allocation(GPU, List.of(gpu0.uuid() + "::0"), pod, "main"),
                new KubeletAllocations.Allocation("nvidia.com/mig-1g.10gb", List.of("1:1"), pod, "side"))));

        assertThat(ledger.view().entries()).as("held since the Allocate").containsExactly(
                new DevicePluginHold(whole0, GPU, gpu0.uuid() + "::0", NOW, Source.POD_RESOURCES, Optional.of(pod)),
                new DevicePluginHold(migB, "nvidia.com/mig-1g.10gb", "1:1", NOW.plusSeconds(1), Source.POD_RESOURCES,
                        Optional.of(pod)));
        assertThat(ledger.view().heldByDevicePlugin(whole1)).as("a MIG device of it is held").isTrue();
        assertThat(ledger.view().heldByDevicePlugin(migA)).isFalse();

        ledger.observe(new KubeletAllocations(NOW.plusSeconds(2), Source.POD_RESOURCES, List.of()));
        assertThat(ledger.view().entries()).as("what the kubelet no longer reports").isEmpty();
    }

    @Test
    void aClaimHoldsItsDevicesFromPrepareOrTheCheckpointUntilReleased() {
        ExclusiveLedger ledger = new ExclusiveLedger();
        List<AllocationLedger.View> told = new CopyOnWriteArrayList<>();
        ledger.addListener(told::add);

        ledger.restoreClaim(claim, List.of(new ClaimDevice("gpu-1-mig-3g40gb-19-0", migA, false)), NOW.minusSeconds(60));
        assertThat(ledger.reserveForClaim(claim, List.of(new ClaimDevice("gpu-1-mig-3g40gb-19-0", migA, false)), NOW))
                .as("the same claim again").isEqualTo(new AllocationLedger.Reservation.Granted());
        ledger.reserveForClaim(new ClaimRef("ml", "debug", "uid-2"), List.of(new ClaimDevice("gpu-0", whole0, true)), NOW);

        assertThat(ledger.view().entries()).containsExactly(
                new DraHold(migA, claim, "gpu-1-mig-3g40gb-19-0", NOW.minusSeconds(60), false),
                new DraHold(whole0, new ClaimRef("ml", "debug", "uid-2"), "gpu-0", NOW, true));
        assertThat(ledger.view().heldByDra(whole1)).as("its MIG device is held").isTrue();
        assertThat(ledger.view().heldByDra(migB)).isFalse();
        assertThat(ledger.view().heldByDra(whole0)).as("admin access holds nothing").isFalse();
        assertThat(ledger.view().holders(whole0)).hasSize(1);

        ledger.releaseClaim("uid-1");
        ledger.releaseClaim("uid-unknown");

        assertThat(ledger.view().entries()).extracting(h -> ((DraHold) h).claim().uid()).containsExactly("uid-2");
        assertThat(told).as("one call per change, none for a claim it did not hold").hasSize(4);
        assertThat(told.getLast().entries()).isEqualTo(ledger.view().entries());
    }

    @Test
    void aUnitOneClaimHoldsIsRefusedToAnotherClaimAndToTheDevicePluginAndNothingIsRecorded() {
        ExclusiveLedger ledger = new ExclusiveLedger();
        ledger.units(units);
        ledger.observe(new KubeletAllocations(NOW, Source.POD_RESOURCES, List.of()));
        ClaimRef other = new ClaimRef("ml", "other", "uid-2");
        ledger.reserveForClaim(claim, List.of(new ClaimDevice("gpu-1-mig-3g40gb-19-0", migA, false)), NOW);
        List<AllocationLedger.View> told = new CopyOnWriteArrayList<>();
        ledger.addListener(told::add);

        assertThat(ledger.reserveForClaim(other, List.of(new ClaimDevice("gpu-0", whole0, false),
                new ClaimDevice("gpu-1-mig-3g40gb-19-0", migA, false)), NOW))
                .isEqualTo(new AllocationLedger.Reservation.Refused(List.of(new AllocationLedger.Conflict(migA,
                        new DraHold(migA, claim, "gpu-1-mig-3g40gb-19-0", NOW, false)))));
        assertThat(ledger.reserveForDevicePlugin(GPU, List.of("1"), NOW)).as("the MIG device's GPU")
                .isInstanceOf(AllocationLedger.Reservation.Refused.class);
        assertThat(ledger.reserveForDevicePlugin("nvidia.com/mig-1g.10gb", List.of("1:1"), NOW)).as("its sibling is free")
                .isEqualTo(new AllocationLedger.Reservation.Granted());
        assertThat(ledger.reserveForClaim(other, List.of(new ClaimDevice("gpu-1-mig-1g10gb-19-1", migB, false)), NOW))
                .as("a claim against the device plugin").isInstanceOf(AllocationLedger.Reservation.Refused.class);
        assertThat(ledger.reserveForClaim(other, List.of(new ClaimDevice("gpu-1-mig-3g40gb-19-0", migA, true)), NOW))
                .as("admin access").isEqualTo(new AllocationLedger.Reservation.Granted());
        assertThat(ledger.reserveForClaim(claim, List.of(new ClaimDevice("gpu-1-mig-3g40gb-19-0", migA, false)), NOW))
                .as("the same claim again").isEqualTo(new AllocationLedger.Reservation.Granted());

        assertThat(ledger.view().entries()).hasSize(3);
        assertThat(told).as("one call per grant, none per refusal").hasSize(3);

        ledger.releaseClaim(claim.uid());
        assertThat(ledger.reserveForClaim(new ClaimRef("ml", "third", "uid-3"),
                List.of(new ClaimDevice("gpu-1-mig-3g40gb-19-0", migA, false)), NOW)).isEqualTo(new AllocationLedger.Reservation.Granted());
        assertThat(ledger.reserveForDevicePlugin(GPU, List.of(gpu0.uuid()), NOW)).isEqualTo(new AllocationLedger.Reservation.Granted());
        assertThat(ledger.reserveForDevicePlugin(GPU, List.of(gpu0.uuid()), NOW)).as("the kubelet keeps its own devices apart")
                .isEqualTo(new AllocationLedger.Reservation.Granted());
    }

    @Test
    void untilTheKubeletReportedOnceTheDevicePluginsHoldsCannotEndAndSoDoNotRefuseClaims() {
        ExclusiveLedger ledger = new ExclusiveLedger();
        ledger.units(units);
        ledger.reserveForDevicePlugin(GPU, List.of(gpu0.uuid()), NOW);

        assertThat(ledger.reserveForClaim(claim, List.of(new ClaimDevice("gpu-0", whole0, false)), NOW))
                .isEqualTo(new AllocationLedger.Reservation.Granted());
        ledger.releaseClaim(claim.uid());
        ledger.observe(new KubeletAllocations(NOW.plusSeconds(1), Source.POD_RESOURCES, List.of()));
        assertThat(ledger.reserveForClaim(claim, List.of(new ClaimDevice("gpu-0", whole0, false)), NOW))
                .isInstanceOf(AllocationLedger.Reservation.Refused.class);
    }

    @Test
    void anAllocateTheKubeletNeverReportsEndsOnceAReportIsTheGraceNewerAndAReportedOneEndsWhenNoLongerReported() {
        ExclusiveLedger ledger = new ExclusiveLedger();
        ledger.units(units);
        ledger.reserveForDevicePlugin(GPU, List.of(gpu0.uuid()), NOW);
        ledger.reserveForDevicePlugin(GPU, List.of("1"), NOW.plusSeconds(3));

        ledger.observe(new KubeletAllocations(NOW.plus(ExclusiveLedger.PROVISIONAL_GRACE).minusMillis(1),
                Source.POD_RESOURCES, List.of()));
        assertThat(ledger.view().entries()).as("a report listed before the grace ran out may have missed them").hasSize(2);

        ledger.observe(new KubeletAllocations(NOW.plus(ExclusiveLedger.PROVISIONAL_GRACE), Source.POD_RESOURCES, List.of()));
        assertThat(ledger.view().entries()).extracting(h -> ((DevicePluginHold) h).deviceId()).containsExactly("1");
        assertThat(ledger.reserveForClaim(claim, List.of(new ClaimDevice("gpu-0", whole0, false)), NOW))
                .isEqualTo(new AllocationLedger.Reservation.Granted());
    }

    @Test
    void aNodeWithoutTheDraDriverNeedsNoLedger() {
        AllocationLedger none = AllocationLedger.none();
        none.units(units);

        assertThat(none.reserveForDevicePlugin(GPU, List.of(gpu0.uuid()), NOW)).isEqualTo(new AllocationLedger.Reservation.Granted());
        assertThat(none.reserveForClaim(claim, List.of(new ClaimDevice("gpu-0", whole0, false)), NOW))
                .isEqualTo(new AllocationLedger.Reservation.Granted());
        assertThat(none.view().entries()).isEmpty();
    }

    @Test
    void aRefusalNamesEachHolderOnOneLine() {
        AllocationLedger.Reservation.Refused refused = new AllocationLedger.Reservation.Refused(List.of(
                new AllocationLedger.Conflict(whole0, new DraHold(whole0, claim, "gpu-0", NOW, false)),
                new AllocationLedger.Conflict(migA, new DevicePluginHold(migA, "nvidia.com/mig-3g.40gb", "1:0", NOW,
                        Source.ALLOCATE, Optional.empty()))));

        assertThat(refused.message()).isEqualTo(gpu0.uuid() + " is held by claim ml/training (uid-1) since 2026-12-01T12:00:00Z; "
                + migA.uuid() + " is held by nvidia.com/mig-3g.40gb, allocated by the kubelet at 2026-12-01T12:00:00Z"
                + " (pod not reported yet)");
    }
}
