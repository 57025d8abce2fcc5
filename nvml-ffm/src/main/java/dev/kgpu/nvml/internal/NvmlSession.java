package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlOptions;

/** The implementation behind {@link Nvml}. */
public final class NvmlSession {

    private NvmlSession() {
    }

    public static Nvml open(NvmlOptions options) {
        NvmlLibrary.load(options);
        throw new UnsupportedOperationException("NvmlSession is being written (issue #2)");
    }
}
