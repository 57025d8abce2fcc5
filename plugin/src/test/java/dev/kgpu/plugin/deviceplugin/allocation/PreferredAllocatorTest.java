package dev.kgpu.plugin.deviceplugin.allocation;

import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.GpuLink;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PcieProximity;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.testing.Devices;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PreferredAllocatorTest {

    /** 4 GPUs: NVLink pairs (0,2) and (1,3); 0 and 1 share a PCIe switch, 2 and 3 another. */
    final List<Gpu> gpus = IntStream.range(0, 4).mapToObj(Devices::gpu).toList();
    final NodeInventory inventory = new NodeInventory(gpus, NodeInventory.linksOf(gpus, (a, b) -> {
        boolean nvlinkPair = (a.index() + b.index()) % 2 == 0;
        boolean sameSwitch = a.index() / 2 == b.index() / 2;
        return new GpuLink(sameSwitch ? PcieProximity.SINGLE_SWITCH : PcieProximity.HOST_BRIDGE, nvlinkPair ? 2 : 0);
    }));
    final PluginResource whole = new PluginResource("nvidia.com/gpu",
            gpus.stream().map(AdvertisedDevice::whole).toList(), Replication.NONE);
    final PreferredAllocator allocator = new PreferredAllocator(inventory, SharedAllocationPolicy.DISTRIBUTED);

    List<String> ids(int... indices) {
        return IntStream.of(indices).mapToObj(Devices::gpuUuid).toList();
    }

    @Test
    void nvlinkPairsComeBeforePcieNeighbours() {
        assertThat(allocator.preferred(whole, ids(0, 1, 2, 3), List.of(), 2)).containsExactlyInAnyOrderElementsOf(ids(0, 2));
    }

    @Test
    void mustIncludeIsHonouredAndItsBestPartnerChosen() {
        assertThat(allocator.preferred(whole, ids(0, 1, 2, 3), ids(3), 2)).containsExactly(Devices.gpuUuid(3), Devices.gpuUuid(1));
    }

    @Test
    void withoutAnNvlinkPartnerThePcieNeighbourWins() {
        assertThat(allocator.preferred(whole, ids(0, 1, 3), ids(0), 2)).containsExactly(Devices.gpuUuid(0), Devices.gpuUuid(1));
    }

    @Test
    void aSingleGpuIsTakenWhereItBreaksTheLeast() {
        // GPU 3's partner is gone: taking 3 keeps the (0,2) pair whole
        assertThat(allocator.preferred(whole, ids(0, 2, 3), List.of(), 1)).containsExactly(Devices.gpuUuid(3));
    }

    @Test
    void largeNodesFallBackToGreedySearch() {
        List<Gpu> many = IntStream.range(0, 64).mapToObj(Devices::gpu).toList();
        NodeInventory big = new NodeInventory(many, NodeInventory.linksOf(many, (a, b) ->
                new GpuLink(a.index() / 8 == b.index() / 8 ? PcieProximity.SINGLE_SWITCH : PcieProximity.ACROSS_NUMA_NODES,
                        a.index() / 8 == b.index() / 8 ? 4 : 0)));
        PluginResource resource = new PluginResource("nvidia.com/gpu", many.stream().map(AdvertisedDevice::whole).toList(),
                Replication.NONE);
        List<String> available = many.stream().map(Gpu::uuid).toList();

        List<String> picked = new PreferredAllocator(big, SharedAllocationPolicy.DISTRIBUTED)
                .preferred(resource, available, List.of(Devices.gpuUuid(17)), 8);

        assertThat(picked).hasSize(8).containsExactlyInAnyOrderElementsOf(IntStream.range(16, 24).mapToObj(Devices::gpuUuid).toList());
    }

    @Test
    void badRequestsAreRefused() {
        assertThatThrownBy(() -> allocator.preferred(whole, ids(0, 1), List.of(), 3))
                .isInstanceOf(AllocationException.BadRequest.class).hasMessageContaining("not enough available devices");
        assertThatThrownBy(() -> allocator.preferred(whole, ids(0, 1), ids(2), 2))
                .isInstanceOf(AllocationException.BadRequest.class).hasMessageContaining("is not among the available");
        assertThatThrownBy(() -> allocator.preferred(whole, List.of("GPU-x"), List.of(), 1))
                .isInstanceOf(AllocationException.UnknownDevice.class);
    }

    // replicas: 2 GPUs x 4 replicas

    final PluginResource shared = new PluginResource("nvidia.com/gpu", gpus.subList(0, 2).stream()
            .flatMap(g -> IntStream.range(0, 4).mapToObj(i -> AdvertisedDevice.replica(g, i))).toList(),
            new Replication.Shared(false, 4, false));

    static String replica(int gpu, int n) {
        return Devices.gpuUuid(gpu) + "::" + n;
    }

    @Test
    void distributedSpreadsOverTheLeastUsedGpus() {
        // GPU 0 has two replicas in use (::0, ::1 missing from available)
        List<String> available = List.of(replica(0, 2), replica(0, 3), replica(1, 0), replica(1, 1), replica(1, 2), replica(1, 3));

        List<String> picked = allocator.preferred(shared, available, List.of(), 3);

        assertThat(picked).extracting(id -> id.substring(0, id.indexOf("::")))
                .containsExactly(Devices.gpuUuid(1), Devices.gpuUuid(1), Devices.gpuUuid(0));
    }

    @Test
    void packedFillsTheMostUsedGpuFirst() {
        List<String> available = List.of(replica(0, 2), replica(0, 3), replica(1, 0), replica(1, 1), replica(1, 2), replica(1, 3));

        List<String> picked = new PreferredAllocator(inventory, SharedAllocationPolicy.PACKED)
                .preferred(shared, available, List.of(), 3);

        assertThat(picked).extracting(id -> id.substring(0, id.indexOf("::")))
                .containsExactly(Devices.gpuUuid(0), Devices.gpuUuid(0), Devices.gpuUuid(1));
    }

    @Test
    void replicasHonourMustInclude() {
        List<String> available = IntStream.range(0, 4).boxed()
                .flatMap(i -> java.util.stream.Stream.of(replica(0, i), replica(1, i))).toList();

        List<String> picked = allocator.preferred(shared, available, List.of(replica(1, 2)), 2);

        assertThat(picked).first().isEqualTo(replica(1, 2));
        assertThat(picked.get(1)).startsWith(Devices.gpuUuid(0));
    }
}
