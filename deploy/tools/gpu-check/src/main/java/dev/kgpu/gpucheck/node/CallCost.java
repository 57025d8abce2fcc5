package dev.kgpu.gpucheck.node;

/**
 * nvml-ffm's cost of one call, from a timed loop on this machine's NVML.
 *
 * @param call         the nvml-ffm method and the NVML functions behind it
 * @param calls        how many calls were timed
 * @param nanosPerCall mean wall time per call
 */
public record CallCost(String call, long calls, double nanosPerCall) {
}
