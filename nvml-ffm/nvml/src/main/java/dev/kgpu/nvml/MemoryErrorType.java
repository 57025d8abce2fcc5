package dev.kgpu.nvml;

/** {@code nvmlMemoryErrorType_t}: single-bit (corrected) or double-bit (uncorrected). */
public enum MemoryErrorType {
    CORRECTED, UNCORRECTED
}
