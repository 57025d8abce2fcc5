package dev.kgpu.validator.core;

/** The node's PCI functions, as {@code lspci} lists them ({@code /sys/bus/pci/devices}). */
@FunctionalInterface
public interface PciDevices {

    /** NVIDIA's PCI vendor ID. */
    int NVIDIA = 0x10de;
    /** Mellanox's PCI vendor ID (NFD's {@code feature.node.kubernetes.io/pci-15b3.present}). */
    int MELLANOX = 0x15b3;

    /**
     * How many PCI functions of this vendor the node has (a GPU's audio function and an NVSwitch count too).
     *
     * @throws java.io.UncheckedIOException when the devices cannot be read
     */
    int count(int vendor);
}
