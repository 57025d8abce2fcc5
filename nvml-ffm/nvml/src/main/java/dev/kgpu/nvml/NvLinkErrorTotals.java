package dev.kgpu.nvml;

/** NVLink error counters summed over every link of a GPU. */
public record NvLinkErrorTotals(long crcFlitErrors, long crcDataErrors, long replayErrors, long recoveryErrors) {
}
