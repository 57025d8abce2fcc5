package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;

/**
 * NVIDIA's GPUs on the PCI bus and the vGPU devices made of them, as go-nvlib's {@code nvpci} and {@code nvmdev}
 * read them from sysfs for gpu-operator's validator.
 */
public interface PciGpus {

    /**
     * A GPU's PCI function.
     *
     * @param address its bus ID, e.g. {@code 0000:3b:00.0}
     * @param driver  the kernel driver it is bound to ({@code nvidia}, {@code vfio-pci}), empty when none
     */
    record Gpu(String address, String driver) {
        public Gpu {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(driver, "driver");
        }
    }

    /**
     * The NVIDIA functions of class VGA or 3D controller that are not SR-IOV virtual functions, by bus ID
     * ({@code nvpci.GetGPUs}).
     *
     * @throws java.io.UncheckedIOException when the bus cannot be read
     */
    List<Gpu> gpus();

    /**
     * How many mediated devices ({@code sys/bus/mdev/devices}) have an NVIDIA PCI function as parent: the node's
     * vGPU devices ({@code nvmdev.GetAllDevices}).
     *
     * @throws java.io.UncheckedIOException when the mediated devices cannot be listed (no {@code mdev} module)
     */
    int vgpuDevices();
}
