package dev.kgpu.nvml;

/** Percent of the last sample period the GPU was busy, and its memory interface was busy. */
public record Utilization(int gpuPercent, int memoryPercent) {
}
