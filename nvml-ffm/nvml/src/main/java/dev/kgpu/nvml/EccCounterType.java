package dev.kgpu.nvml;

/** {@code nvmlEccCounterType_t}: since the last driver load (volatile) or over the GPU's life (aggregate). */
public enum EccCounterType {
    VOLATILE, AGGREGATE
}
