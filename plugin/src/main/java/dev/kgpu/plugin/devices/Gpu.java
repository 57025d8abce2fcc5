package dev.kgpu.plugin.devices;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A physical GPU as the device plugin sees it.
 *
 * @param index       NVML index
 * @param uuid        {@code GPU-...}
 * @param productName e.g. {@code NVIDIA A100-SXM4-80GB}
 * @param minor       the {@code N} of {@code /dev/nvidiaN}
 * @param pciBusId    NVML's bus id form, {@code 00000000:07:00.0}
 * @param numaNode    the GPU's NUMA node, when known
 * @param migEnabled  whether MIG mode is on now
 * @param migDevices  the MIG devices configured on it (empty unless {@code migEnabled})
 */
public record Gpu(int index, String uuid, String productName, int minor, String pciBusId, OptionalInt numaNode,
                  boolean migEnabled, List<MigInstance> migDevices) implements PhysicalDevice {

    public Gpu {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(productName, "productName");
        Objects.requireNonNull(pciBusId, "pciBusId");
        Objects.requireNonNull(numaNode, "numaNode");
        migDevices = List.copyOf(migDevices);
    }

    @Override
    public String indexId() {
        return Integer.toString(index);
    }

    @Override
    public String gpuUuid() {
        return uuid;
    }

    @Override
    public int gpuIndex() {
        return index;
    }

    @Override
    public List<String> deviceNodes() {
        return List.of("/dev/nvidia" + minor);
    }
}
