package dev.kgpu.exporter.collector;

/** A group of NVML reads a collector needs; the NVML adapter makes only the reads some collector asks for. */
public enum Reading {
    /** {@code GpuDevice.telemetry()}: clocks, temperatures, power, energy, utilisation, memory, NVLink, rows. */
    TELEMETRY,
    /** GPM samples of every GPU and GPU instance that has GPM. */
    GPM,
    /** ECC error totals. */
    ECC,
    /** Retired page counts. */
    RETIRED_PAGES,
    /** Clock-violation times. */
    VIOLATIONS,
    /** NVLink error totals. */
    NVLINK_ERRORS,
    /** vGPU licence state. */
    VGPU_LICENSE,
    /** Serial, VBIOS, InfoROM image version (label rows). */
    IDENTITY_STRINGS,
    /** The OEM, ECC and power InfoROM objects' versions (label rows). */
    INFOROM_VERSIONS,
    /** {@code nvmlDeviceGetPcieThroughput} both ways: on a real GPU about 40 ms per GPU. */
    PCIE_THROUGHPUT,
    /** Per-link NVLink data counters. */
    NVLINK_TRAFFIC,
    /** NVLink peer-to-peer status of every pair of GPUs. */
    P2P_STATUS
}
