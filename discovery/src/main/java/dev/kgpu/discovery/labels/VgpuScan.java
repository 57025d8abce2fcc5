package dev.kgpu.discovery.labels;

import java.util.List;

/**
 * What a scan of the NVIDIA PCI devices' vendor-specific capabilities found about vGPU.
 */
public sealed interface VgpuScan {

    /** The PCI devices could not be read (no sysfs, or too little of the configuration space): no vGPU labels. */
    record Unreadable(String reason) implements VgpuScan {
    }

    /**
     * The scan worked; {@code hosts} has one entry per vGPU device found (empty on bare metal).
     */
    record Scanned(List<HostDriver> hosts) implements VgpuScan {
        public Scanned {
            hosts = List.copyOf(hosts);
        }
    }

    /** The vGPU manager on the hypervisor host, as one vGPU device's capability record reports it. */
    record HostDriver(String version, String branch) {
    }

    /** A scan that found no vGPU devices. */
    static VgpuScan none() {
        return new Scanned(List.of());
    }
}
