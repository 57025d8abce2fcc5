package dev.kgpu.nvml;

/** {@code nvmlPageRetirementCause_t}. */
public enum PageRetirementCause {
    MULTIPLE_SINGLE_BIT_ECC_ERRORS, DOUBLE_BIT_ECC_ERROR
}
