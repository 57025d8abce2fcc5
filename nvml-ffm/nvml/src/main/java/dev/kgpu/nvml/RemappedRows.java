package dev.kgpu.nvml;

/** Row remapping state (Ampere and later). */
public record RemappedRows(int correctable, int uncorrectable, boolean pending, boolean failed) {
}
