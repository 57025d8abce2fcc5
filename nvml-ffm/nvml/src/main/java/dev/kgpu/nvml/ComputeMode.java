package dev.kgpu.nvml;

/** {@code nvmlComputeMode_t}. */
public enum ComputeMode {
    DEFAULT, EXCLUSIVE_THREAD, PROHIBITED, EXCLUSIVE_PROCESS;

    public static ComputeMode fromNvml(int value) {
        return switch (value) {
            case 0 -> DEFAULT;
            case 1 -> EXCLUSIVE_THREAD;
            case 2 -> PROHIBITED;
            case 3 -> EXCLUSIVE_PROCESS;
            default -> throw new IllegalArgumentException("NVML compute mode was '" + value + "' but it must be 0-3");
        };
    }
}
