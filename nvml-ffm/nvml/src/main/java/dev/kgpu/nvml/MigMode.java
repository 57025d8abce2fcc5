package dev.kgpu.nvml;

/** MIG mode now and after the next GPU reset. */
public record MigMode(boolean currentEnabled, boolean pendingEnabled) {
}
