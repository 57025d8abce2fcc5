package dev.kgpu.nvml;

/**
 * The data payload one NVLink has carried since the driver loaded ({@code NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX}
 * and {@code _RX} with the link as scope), in KiB; counters that only grow.
 *
 * @param link      the link's number, 0-based
 * @param dataTxKiB data sent over it
 * @param dataRxKiB data received over it
 */
public record NvLinkTraffic(int link, long dataTxKiB, long dataRxKiB) {
}
