package dev.kgpu.nvml;

/** {@code nvmlComputeMode_t}. */
public enum ComputeMode {
    DEFAULT, EXCLUSIVE_THREAD, PROHIBITED, EXCLUSIVE_PROCESS;

    /** The {@code nvmlComputeMode_t} value. */
    public int toNvml() {
        return switch (this) {
            case DEFAULT -> 0;
            case EXCLUSIVE_THREAD -> 1;
            case PROHIBITED -> 2;
            case EXCLUSIVE_PROCESS -> 3;
        };
    }

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
