package dev.kgpu.nvml;

/**
 * {@code nvmlDeviceGetPcieThroughput}: the PCIe traffic of one GPU over NVML's last 20 ms sample, in KB/s
 * (1 KB granularity), headers and payload together.
 *
 * @param txKBps sent by the GPU ({@code NVML_PCIE_UTIL_TX_BYTES})
 * @param rxKBps received by the GPU ({@code NVML_PCIE_UTIL_RX_BYTES})
 */
public record PcieThroughput(long txKBps, long rxKBps) {
}
