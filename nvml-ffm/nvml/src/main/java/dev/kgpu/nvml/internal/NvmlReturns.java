package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.NvmlException;
import dev.kgpu.nvml.NvmlReturnCode;
import dev.kgpu.nvml.internal.bindings.NvmlNative;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns {@code nvmlReturn_t} values into results: {@code NVML_SUCCESS} passes, {@code NOT_SUPPORTED} is a
 * missing value where the caller asks for one, anything else is the {@link NvmlException} subtype for the
 * code carrying NVML's own text ({@code nvmlErrorString}).
 *
 * <p>Thread-safety: stateless apart from a concurrent cache of NVML's error texts.
 */
final class NvmlReturns {

    static final int SUCCESS = 0;
    static final int UNINITIALIZED = 1;
    static final int INVALID_ARGUMENT = 2;
    static final int NOT_SUPPORTED = 3;
    static final int NOT_FOUND = 6;
    static final int INSUFFICIENT_SIZE = 7;
    static final int TIMEOUT = 10;
    static final int FUNCTION_NOT_FOUND = 13;
    static final int ARGUMENT_VERSION_MISMATCH = 25;

    private static final ConcurrentHashMap<Integer, String> MESSAGES = new ConcurrentHashMap<>();

    private NvmlReturns() {
    }

    /** Throws unless {@code rc} is {@code NVML_SUCCESS}. */
    static void check(int rc, String function) {
        if (rc != SUCCESS) {
            throw failure(rc, function);
        }
    }

    /** True on success, false on {@code NOT_SUPPORTED}; throws for every other code. */
    static boolean supported(int rc, String function) {
        if (rc == SUCCESS) {
            return true;
        }
        if (rc == NOT_SUPPORTED) {
            return false;
        }
        throw failure(rc, function);
    }

    /** The exception for a failed call of {@code function}. */
    static NvmlException failure(int rc, String function) {
        return NvmlException.of(NvmlReturnCode.fromNvml(rc), function, message(rc));
    }

    /** {@code nvmlErrorString(rc)}, read once per code. */
    static String message(int rc) {
        return MESSAGES.computeIfAbsent(rc, NvmlReturns::readMessage);
    }

    private static String readMessage(int rc) {
        MemorySegment text = NvmlNative.nvmlErrorString(rc);
        if (text == null || text.equals(MemorySegment.NULL)) {
            return "unknown NVML error " + rc;
        }
        return text.reinterpret(1024).getString(0);
    }
}
