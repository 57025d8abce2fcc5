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
 * @param details     what only dynamic resource allocation publishes: brand, architecture, memory
 */
public record Gpu(int index, String uuid, String productName, int minor, String pciBusId, OptionalInt numaNode,
                  boolean migEnabled, List<MigInstance> migDevices, GpuDetails details) implements PhysicalDevice {

    public Gpu {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(productName, "productName");
        Objects.requireNonNull(pciBusId, "pciBusId");
        Objects.requireNonNull(numaNode, "numaNode");
        migDevices = List.copyOf(migDevices);
        Objects.requireNonNull(details, "details");
    }

    /** A GPU whose details are not known ({@link GpuDetails#UNKNOWN}), as the device plugin alone needs it. */
    public Gpu(int index, String uuid, String productName, int minor, String pciBusId, OptionalInt numaNode,
               boolean migEnabled, List<MigInstance> migDevices) {
        this(index, uuid, productName, minor, pciBusId, numaNode, migEnabled, migDevices, GpuDetails.UNKNOWN);
    }

    /**
     * The PCI address as sysfs and Kubernetes write it, {@code 0000:07:00.0} (NVML's {@code 00000000:07:00.0} lower-cased,
     * with a four-digit domain), as go-nvlib's {@code GetPCIBusID} returns it.
     */
    public String pciAddress() {
        String lower = pciBusId.toLowerCase(java.util.Locale.ROOT);
        return lower.length() > 12 ? lower.substring(lower.length() - 12) : lower;
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
