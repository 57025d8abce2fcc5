package dev.kgpu.plugin.devices;

import dev.kgpu.cdi.NvidiaCdiGenerator;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Devices of the inventory as NVIDIA's CDI generator takes them. Stateless. */
public final class CdiGpus {

    private CdiGpus() {
    }

    /**
     * {@code devices} as the CDI generator takes them: each GPU among them whole, and each MIG device among them under
     * its GPU, in NVML index order (MIG devices in their index order). The device plugin's spec and the DRA driver's
     * per-claim specs are made from it.
     */
    public static List<NvidiaCdiGenerator.Gpu> of(NodeInventory inventory, Collection<? extends PhysicalDevice> devices) {
        Map<String, List<MigInstance>> migs = new LinkedHashMap<>();
        Set<String> whole = new LinkedHashSet<>();
        for (PhysicalDevice device : devices) {
            switch (device) {
                case Gpu gpu -> whole.add(gpu.uuid());
                case MigInstance mig -> migs.computeIfAbsent(mig.parentUuid(), k -> new ArrayList<>()).add(mig);
            }
        }
        List<NvidiaCdiGenerator.Gpu> gpus = new ArrayList<>();
        for (Gpu gpu : inventory.gpus().stream().sorted(Comparator.comparingInt(Gpu::index)).toList()) {
            if (whole.contains(gpu.uuid())) {
                gpus.add(new NvidiaCdiGenerator.Gpu(gpu.index(), gpu.uuid(), gpu.minor(), gpu.pciAddress(), false, List.of()));
            }
            List<MigInstance> its = migs.getOrDefault(gpu.uuid(), List.of());
            if (!its.isEmpty()) {
                gpus.add(new NvidiaCdiGenerator.Gpu(gpu.index(), gpu.uuid(), gpu.minor(), gpu.pciAddress(), true,
                        its.stream().sorted(Comparator.comparingInt(MigInstance::migIndex))
                                .map(m -> new NvidiaCdiGenerator.Mig(m.migIndex(), m.uuid(), m.gpuInstanceId(),
                                        m.computeInstanceId()))
                                .toList()));
            }
        }
        return gpus;
    }
}
