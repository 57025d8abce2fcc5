package dev.kgpu.validator.core;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * gpu-operator's components for GPUs given to virtual machines, checked where NVIDIA checks them, in sysfs:
 * {@code vfio-pci} (every GPU bound to a VFIO driver, for {@code vm-passthrough}) and {@code vgpu-devices} (at
 * least one vGPU device, for {@code vm-vgpu}). Each first reads the node's {@link GpuWorkload} and records it in
 * {@code OUTPUT_DIR/workload-type}, which gpu-operator's sandbox device plugin waits on; on a node of another
 * workload it is skipped as NVIDIA skips it (passes, writes no {@code *-ready} file).
 */
public final class VmWorkloadValidator implements ComponentValidator {

    /** The VFIO drivers NVIDIA's validator accepts a GPU bound to. */
    static final Set<String> VFIO_DRIVERS = Set.of("vfio-pci", "nvgrace_gpu_vfio_pci");

    private final Component component;
    private final GpuWorkload required;
    private final NodeLabels labels;
    private final GpuWorkload fallback;
    private final StatusFiles statusFiles;
    private final PciGpus pci;

    private VmWorkloadValidator(Component component, GpuWorkload required, NodeLabels labels, GpuWorkload fallback,
                                StatusFiles statusFiles, PciGpus pci) {
        this.component = component;
        this.required = required;
        this.labels = Objects.requireNonNull(labels, "labels");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        this.statusFiles = Objects.requireNonNull(statusFiles, "statusFiles");
        this.pci = Objects.requireNonNull(pci, "pci");
    }

    /**
     * The validator of {@code vfio-pci} or {@code vgpu-devices}.
     *
     * @param fallback the workload of a node without (a valid) {@value GpuWorkload#LABEL} label
     */
    public static VmWorkloadValidator of(Component component, NodeLabels labels, GpuWorkload fallback,
                                         StatusFiles statusFiles, PciGpus pci) {
        return switch (component) {
            case VFIO_PCI -> new VmWorkloadValidator(component, GpuWorkload.VM_PASSTHROUGH, labels, fallback,
                    statusFiles, pci);
            case VGPU_DEVICES -> new VmWorkloadValidator(component, GpuWorkload.VM_VGPU, labels, fallback,
                    statusFiles, pci);
            default -> throw new IllegalArgumentException(component + " is no virtual-machine component");
        };
    }

    @Override
    public Component component() {
        return component;
    }

    @Override
    public Evidence validate() {
        GpuWorkload workload = GpuWorkload.of(labels.read(), fallback);
        try {
            statusFiles.writeWorkloadType(workload);
        } catch (UncheckedIOException e) {
            throw new ComponentFailure(Layer.RUNTIME, e.getMessage() + " (OUTPUT_DIR must be a writable directory)");
        }
        if (workload != required) {
            return Evidence.withoutStatusFile("skipped: this node's GPU workload is " + workload + " (label "
                    + GpuWorkload.LABEL + ", else DEFAULT_GPU_WORKLOAD_CONFIG), not " + required);
        }
        try {
            return component == Component.VFIO_PCI ? everyGpuOnVfio() : vgpuDevices();
        } catch (UncheckedIOException e) {
            throw new ComponentFailure(Layer.DRIVER, e.getMessage());
        }
    }

    private Evidence everyGpuOnVfio() {
        List<PciGpus.Gpu> gpus = pci.gpus();
        for (PciGpus.Gpu gpu : gpus) {
            if (!VFIO_DRIVERS.contains(gpu.driver())) {
                throw new ComponentFailure(Layer.DRIVER, "GPU " + gpu.address() + " is bound to "
                        + (gpu.driver().isEmpty() ? "no driver" : "'" + gpu.driver() + "'") + ", not vfio-pci;"
                        + " vm-passthrough needs every GPU bound to vfio-pci (gpu-operator's vfio-manager binds them)");
            }
        }
        return Evidence.of(gpus.size() + " GPUs bound to vfio-pci (vm-passthrough)");
    }

    private Evidence vgpuDevices() {
        int devices = pci.vgpuDevices();
        if (devices == 0) {
            throw new ComponentFailure(Layer.DRIVER, "no vGPU devices on this node (no mediated device of an NVIDIA"
                    + " GPU in /sys/bus/mdev/devices); vm-vgpu needs them (gpu-operator's vgpu-device-manager"
                    + " creates them)");
        }
        return Evidence.of(devices + " vGPU devices (vm-vgpu)");
    }
}
