package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.plugin.deviceplugin.allocation.AllocationException;
import dev.kgpu.plugin.deviceplugin.allocation.AllocationSettings;
import dev.kgpu.plugin.deviceplugin.allocation.Allocator;
import dev.kgpu.plugin.deviceplugin.allocation.PreferredAllocator;
import dev.kgpu.plugin.deviceplugin.allocation.SharedAllocationPolicy;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.DeviceStatus;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.ClaimRef;
import dev.kgpu.plugin.node.DeviceUnit;
import dev.kgpu.plugin.node.PhysicalUnits;
import dev.kgpu.plugin.node.ExclusiveLedger;
import dev.kgpu.plugin.testing.Devices;
import dev.kgpu.plugin.testing.RefusingLedger;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One resource's Allocate and the node's allocation ledger: the devices are reserved before the answer. */
class ResourceServiceTest {

    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    final Gpu gpu0 = Devices.gpu(0);
    final Gpu gpu1 = Devices.gpu(1);
    final NodeInventory inventory = NodeInventory.withoutTopology(List.of(gpu0, gpu1));
    final PluginResource replicas = new PluginResource("nvidia.com/gpu", Stream.of(gpu0, gpu1)
            .flatMap(g -> IntStream.range(0, 2).mapToObj(i -> AdvertisedDevice.replica(g, i))).toList(),
            new Replication.Shared(false, 2, false));

    ResourceService service(AllocationLedger ledger) {
        ledger.units(PhysicalUnits.of(inventory));
        return new ResourceService(replicas, uuid -> true, new Allocator(AllocationSettings.defaults(), (devRoot, path) -> false,
                () -> "id"), new PreferredAllocator(inventory, SharedAllocationPolicy.DISTRIBUTED), ledger,
                InstantSource.fixed(NOW));
    }

    @Test
    void anAllocateHoldsItsDevicesInTheLedger() {
        ExclusiveLedger ledger = new ExclusiveLedger();
        ledger.observe(new AllocationLedger.KubeletAllocations(NOW.minusSeconds(1), AllocationLedger.Source.POD_RESOURCES,
                List.of())); // the kubelet reported: device-plugin holds count

        service(ledger).allocate(List.of(gpu0.uuid() + "::1"));

        assertThat(ledger.view().entries()).containsExactly(new AllocationLedger.Hold.DevicePluginHold(DeviceUnit.of(gpu0),
                "nvidia.com/gpu", gpu0.uuid() + "::1", NOW, AllocationLedger.Source.ALLOCATE, Optional.empty()));
        assertThat(ledger.view().heldByDevicePlugin(DeviceUnit.of(gpu0))).isTrue();
        assertThat(ledger.view().heldByDevicePlugin(DeviceUnit.of(gpu1))).isFalse();
    }

    @Test
    void everyReplicaOfAGpuAClaimHoldsIsListedUnhealthyWhileTheClaimHoldsIt() {
        ExclusiveLedger ledger = new ExclusiveLedger();
        ResourceService service = service(ledger);
        ledger.addListener(service);
        java.util.concurrent.atomic.AtomicReference<List<DeviceStatus>> listed = new java.util.concurrent.atomic.AtomicReference<>();
        service.watch(listed::set);
        dev.kgpu.plugin.testing.Await.until(() -> listed.get() != null && listed.get().stream().allMatch(DeviceStatus::healthy),
                java.time.Duration.ofSeconds(10), "all healthy");

        ledger.reserveForClaim(new ClaimRef("ml", "a100-pod-7", "uid-7"),
                List.of(new AllocationLedger.ClaimDevice("gpu-1", DeviceUnit.of(gpu1), false)), NOW);

        dev.kgpu.plugin.testing.Await.until(() -> listed.get().stream().filter(d -> !d.healthy()).map(DeviceStatus::id)
                .toList().equals(List.of(gpu1.uuid() + "::0", gpu1.uuid() + "::1")), java.time.Duration.ofSeconds(10),
                "gpu-1's replicas withdrawn; last: " + listed.get());

        ledger.releaseClaim("uid-7");

        dev.kgpu.plugin.testing.Await.until(() -> listed.get().stream().allMatch(DeviceStatus::healthy),
                java.time.Duration.ofSeconds(10), "back once released");
    }

    @Test
    void anAllocateOfADeviceAClaimHoldsIsRefusedNamingTheClaim() {
        RefusingLedger ledger = new RefusingLedger(new AllocationLedger.Hold.DraHold(DeviceUnit.of(gpu0),
                new ClaimRef("ml", "a100-pod-7", "uid-7"), "gpu-0", NOW.minusSeconds(5), false));
        ResourceService service = service(ledger);

        assertThatThrownBy(() -> service.allocate(List.of(gpu1.uuid() + "::0", gpu0.uuid() + "::0")))
                .isInstanceOf(AllocationException.Held.class)
                .hasMessage("allocation request for 'nvidia.com/gpu' refused: " + gpu0.uuid()
                        + " is held by claim ml/a100-pod-7 (uid-7) since 2026-12-01T11:59:55Z");
        assertThat(ledger.view().entries()).as("nothing reserved").isEmpty();
        assertThat(service.allocate(List.of(gpu1.uuid() + "::0")).envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", gpu1.uuid());
    }
}
