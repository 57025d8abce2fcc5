package dev.kgpu.nvml;

import java.util.Locale;

/**
 * Where a GPU sits on PCI.
 *
 * @param busId          NVML's form, {@code 00000000:3B:00.0} (what dcgm-exporter prints as {@code pci_bus_id})
 * @param pciDeviceId    combined device and vendor id, e.g. {@code 0x20B510DE}
 * @param pciSubSystemId combined subsystem and subsystem vendor id
 */
public record PciInfo(String busId, int domain, int bus, int device, int pciDeviceId, int pciSubSystemId) {

    public PciInfo {
        if (busId == null || busId.isBlank()) {
            throw new IllegalArgumentException("PCI bus id was '" + busId + "' but it must not be blank");
        }
    }

    /** The Linux sysfs form, {@code 0000:3b:00.0}, as used under {@code /sys/bus/pci/devices}. */
    public String sysfsBusId() {
        return String.format(Locale.ROOT, "%04x:%02x:%02x.0", domain, bus, device);
    }

    /** The PCI vendor id, {@code 0x10DE} for NVIDIA. */
    public int vendorId() {
        return pciDeviceId & 0xFFFF;
    }

    /** The PCI device id, e.g. {@code 0x20B5}. */
    public int deviceId() {
        return (pciDeviceId >>> 16) & 0xFFFF;
    }
}
