package dev.kgpu.validator.core;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What the validator proves, in the order a pass checks it, with gpu-operator's names. The order differs from
 * NVIDIA's init containers (driver, toolkit, cuda, plugin) because kgpu's CUDA sample pod requests
 * {@code nvidia.com/gpu} and so needs the device plugin to have registered first. The kernel-module components
 * (GDS, GDRCopy, GPUDirect RDMA, MOFED) come right after the driver, as NVIDIA's driver validation triggers
 * them. The sandbox components ({@code cc-manager}, {@code vfio-pci}, {@code vgpu-devices}) come first, in the
 * order of gpu-operator's {@code nvidia-sandbox-validator} init containers: they check a node whose GPUs go to
 * virtual machines, which has no container driver stack to validate after them. {@link #METRICS} is no check but
 * gpu-operator's node-status exporter, which runs alone.
 */
public enum Component {
    CC_MANAGER("cc-manager"),
    VFIO_PCI("vfio-pci"),
    VGPU_DEVICES("vgpu-devices"),
    DRIVER("driver"),
    NVIDIA_FS("nvidia-fs"),
    GDRCOPY("gdrcopy"),
    NVIDIA_PEERMEM("nvidia-peermem"),
    MOFED("mofed"),
    TOOLKIT("toolkit"),
    PLUGIN("plugin"),
    CUDA("cuda"),
    METRICS("metrics");

    /** What {@code all} (and no {@code COMPONENT}) means: the four checks of a GPU node's container stack. */
    public static final List<Component> ALL = List.of(DRIVER, TOOLKIT, PLUGIN, CUDA);

    /** gpu-operator's components kgpu does not implement, each with why. */
    public static final Map<String, String> UNSUPPORTED = Map.of(
            "vgpu-manager", "NVIDIA's runs the vGPU host driver's nvidia-smi (chroot into /host or the vGPU manager"
                    + " container's /run/nvidia/driver) and writes host-vgpu-manager-ready or vgpu-manager-ready by"
                    + " which one answered; kgpu's validator carries no nvidia-smi and does not chroot");

    private final String id;

    Component(String id) {
        this.id = id;
    }

    /** The name NVIDIA's {@code COMPONENT} setting uses, e.g. {@code driver}. */
    public String id() {
        return id;
    }

    /** The status file written into {@code OUTPUT_DIR} on success, e.g. {@code driver-ready}. */
    public String statusFileName() {
        return id + "-ready";
    }

    /** The component with this {@link #id()}, ignoring case. */
    public static Optional<Component> byId(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(c -> c.id.equals(wanted)).findFirst();
    }

    @Override
    public String toString() {
        return id;
    }
}
