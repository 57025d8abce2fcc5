package dev.kgpu.nvml;

import java.util.List;

/**
 * An NVML call failed. Each subtype is a failure a caller can act on; {@link OperationFailed} carries
 * every other return code. The message holds the NVML function and NVML's own text
 * ({@code nvmlErrorString}), e.g. {@code nvmlDeviceGetUUID: GPU is lost (NVML_ERROR_GPU_IS_LOST)}.
 *
 * <p>{@code NVML_ERROR_NOT_SUPPORTED} is not an exception where a value may be missing (the API returns
 * an empty {@code Optional}); it becomes {@link NotSupportedHere} only where the caller asked for an
 * operation the GPU cannot do at all.
 */
public abstract sealed class NvmlException extends RuntimeException {

    private final transient NvmlReturnCode code;
    private final String function;

    NvmlException(NvmlReturnCode code, String function, String nvmlMessage) {
        super(function + ": " + nvmlMessage + " (" + code.cName() + ")");
        this.code = code;
        this.function = function;
    }

    NvmlException(String message, Throwable cause) {
        super(message, cause);
        this.code = NvmlReturnCode.ERROR_LIBRARY_NOT_FOUND;
        this.function = "dlopen";
    }

    /** NVML's return code. */
    public NvmlReturnCode code() {
        return code;
    }

    /** The NVML function that failed, e.g. {@code nvmlDeviceGetUUID}. */
    public String function() {
        return function;
    }

    /**
     * Maps an NVML return code to its exception type. {@code nvmlMessage} is {@code nvmlErrorString(code)}.
     */
    public static NvmlException of(NvmlReturnCode code, String function, String nvmlMessage) {
        return switch (code) {
            case ERROR_UNINITIALIZED -> new Uninitialized(code, function, nvmlMessage);
            case ERROR_INVALID_ARGUMENT, ERROR_ARGUMENT_VERSION_MISMATCH ->
                    new InvalidArgument(code, function, nvmlMessage);
            case ERROR_NOT_SUPPORTED -> new NotSupportedHere(code, function, nvmlMessage);
            case ERROR_NO_PERMISSION -> new NoPermission(code, function, nvmlMessage);
            case ERROR_NOT_FOUND, ERROR_GPU_NOT_FOUND -> new NotFound(code, function, nvmlMessage);
            case ERROR_INSUFFICIENT_SIZE -> new InsufficientSize(code, function, nvmlMessage);
            case ERROR_DRIVER_NOT_LOADED, ERROR_LIB_RM_VERSION_MISMATCH ->
                    new DriverNotLoaded(code, function, nvmlMessage);
            case ERROR_TIMEOUT -> new Timeout(code, function, nvmlMessage);
            case ERROR_GPU_IS_LOST -> new GpuLost(code, function, nvmlMessage);
            case ERROR_RESET_REQUIRED -> new ResetRequired(code, function, nvmlMessage);
            default -> new OperationFailed(code, function, nvmlMessage);
        };
    }

    /** NVML is not initialised (never opened, or closed). */
    public static final class Uninitialized extends NvmlException {
        Uninitialized(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** A bad handle, a null pointer or an out-of-range value reached NVML. */
    public static final class InvalidArgument extends NvmlException {
        InvalidArgument(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** The GPU cannot do what was asked at all (where an empty value would not make sense). */
    public static final class NotSupportedHere extends NvmlException {
        NotSupportedHere(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** The process lacks the permission NVML needs. */
    public static final class NoPermission extends NvmlException {
        NoPermission(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** No such device, instance or object. */
    public static final class NotFound extends NvmlException {
        NotFound(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** A buffer was too small for NVML's answer. */
    public static final class InsufficientSize extends NvmlException {
        InsufficientSize(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** The NVIDIA kernel driver is not loaded, or does not match the library. */
    public static final class DriverNotLoaded extends NvmlException {
        DriverNotLoaded(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** An NVML wait timed out. */
    public static final class Timeout extends NvmlException {
        Timeout(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** The GPU fell off the bus or stopped answering. */
    public static final class GpuLost extends NvmlException {
        GpuLost(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** The GPU needs a reset before it works again. */
    public static final class ResetRequired extends NvmlException {
        ResetRequired(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** Any other NVML failure; {@link #code()} tells which. */
    public static final class OperationFailed extends NvmlException {
        OperationFailed(NvmlReturnCode code, String function, String message) {
            super(code, function, message);
        }
    }

    /** {@code libnvidia-ml.so.1} could not be loaded from any of the places tried. */
    public static final class LibraryNotFound extends NvmlException {
        private final List<String> tried;

        public LibraryNotFound(List<String> tried, Throwable cause) {
            super("could not load libnvidia-ml.so.1; tried " + String.join(", ", tried)
                    + " (set KGPU_NVML_LIBRARY to the library file, or NVIDIA_DRIVER_ROOT to the driver root)", cause);
            this.tried = List.copyOf(tried);
        }

        /** Every path (or loader name) tried, in order. */
        public List<String> tried() {
            return tried;
        }
    }
}
