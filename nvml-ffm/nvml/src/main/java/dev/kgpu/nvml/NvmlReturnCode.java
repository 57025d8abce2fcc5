package dev.kgpu.nvml;

/** Every {@code nvmlReturn_t} value of NVML API 12, with its C name. */
public enum NvmlReturnCode {
    SUCCESS(0),
    ERROR_UNINITIALIZED(1),
    ERROR_INVALID_ARGUMENT(2),
    ERROR_NOT_SUPPORTED(3),
    ERROR_NO_PERMISSION(4),
    ERROR_ALREADY_INITIALIZED(5),
    ERROR_NOT_FOUND(6),
    ERROR_INSUFFICIENT_SIZE(7),
    ERROR_INSUFFICIENT_POWER(8),
    ERROR_DRIVER_NOT_LOADED(9),
    ERROR_TIMEOUT(10),
    ERROR_IRQ_ISSUE(11),
    ERROR_LIBRARY_NOT_FOUND(12),
    ERROR_FUNCTION_NOT_FOUND(13),
    ERROR_CORRUPTED_INFOROM(14),
    ERROR_GPU_IS_LOST(15),
    ERROR_RESET_REQUIRED(16),
    ERROR_OPERATING_SYSTEM(17),
    ERROR_LIB_RM_VERSION_MISMATCH(18),
    ERROR_IN_USE(19),
    ERROR_MEMORY(20),
    ERROR_NO_DATA(21),
    ERROR_VGPU_ECC_NOT_SUPPORTED(22),
    ERROR_INSUFFICIENT_RESOURCES(23),
    ERROR_FREQ_NOT_SUPPORTED(24),
    ERROR_ARGUMENT_VERSION_MISMATCH(25),
    ERROR_DEPRECATED(26),
    ERROR_NOT_READY(27),
    ERROR_GPU_NOT_FOUND(28),
    ERROR_INVALID_STATE(29),
    ERROR_UNKNOWN(999);

    private final int value;

    NvmlReturnCode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** The C name, e.g. {@code NVML_ERROR_GPU_IS_LOST}. */
    public String cName() {
        return "NVML_" + name();
    }

    /** The code for an {@code nvmlReturn_t}; values this list does not know map to {@link #ERROR_UNKNOWN}. */
    public static NvmlReturnCode fromNvml(int value) {
        for (NvmlReturnCode code : values()) {
            if (code.value == value) {
                return code;
            }
        }
        return ERROR_UNKNOWN;
    }
}
