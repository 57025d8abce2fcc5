package dev.kgpu.plugin.devices;

import java.util.List;
import java.util.OptionalInt;

/**
 * Something a container can be given: a whole GPU or one MIG device. Immutable.
 */
public sealed interface PhysicalDevice permits Gpu, MigInstance {

    /** {@code GPU-...} or {@code MIG-...}. */
    String uuid();

    /** The index form NVIDIA's {@code deviceIDStrategy: index} passes: {@code 0}, or {@code 0:1} for a MIG device. */
    String indexId();

    /** The UUID of the physical GPU this device lives on (its own for a GPU). */
    String gpuUuid();

    /** The NVML index of the physical GPU this device lives on. */
    int gpuIndex();

    /** The NUMA node of the GPU, when the platform reports one. */
    OptionalInt numaNode();

    /**
     * Device nodes a container needs for this device, container paths under {@code /dev}: the GPU's
     * {@code /dev/nvidiaN} and, for a MIG device, its {@code /dev/nvidia-caps/nvidia-capN} access nodes.
     */
    List<String> deviceNodes();
}
