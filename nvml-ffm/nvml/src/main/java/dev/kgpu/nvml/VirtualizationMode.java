package dev.kgpu.nvml;

/** {@code nvmlGpuVirtualizationMode_t}: how the GPU is virtualised, seen from where NVML runs. */
public enum VirtualizationMode {
    /** Bare metal. */
    NONE,
    /** Passed through to a virtual machine (NVML runs in the guest). */
    PASSTHROUGH,
    /** A vGPU guest: the device is a virtual GPU. */
    VGPU,
    /** A host with vGPU enabled. */
    HOST_VGPU,
    /** A host with vSGA enabled. */
    HOST_VSGA;

    public static VirtualizationMode fromNvml(int value) {
        return switch (value) {
            case 0 -> NONE;
            case 1 -> PASSTHROUGH;
            case 2 -> VGPU;
            case 3 -> HOST_VGPU;
            case 4 -> HOST_VSGA;
            default -> throw new IllegalArgumentException("NVML virtualization mode was '" + value + "' but it must be 0-4");
        };
    }
}
