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
 * them. {@link #METRICS} is no check but gpu-operator's node-status exporter, which runs alone.
 */
public enum Component {
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

    /**
     * gpu-operator's components kgpu does not implement, each with why: they serve VM workloads (GPU
     * passthrough, vGPU) or confidential computing, which need gpu-operator's sandbox operands.
     */
    public static final Map<String, String> UNSUPPORTED = Map.of(
            "vfio-pci", "it checks that GPUs are bound to vfio-pci for gpu-operator's vm-passthrough workloads,"
                    + " which kgpu does not deploy",
            "vgpu-manager", "it checks the vGPU host driver and its mediated devices for gpu-operator's vm-vgpu"
                    + " workloads, which kgpu does not deploy",
            "vgpu-devices", "it checks vGPU mediated devices for gpu-operator's vm-vgpu workloads, which kgpu does"
                    + " not deploy",
            "cc-manager", "it waits for gpu-operator's confidential-computing manager, which kgpu does not deploy");

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
