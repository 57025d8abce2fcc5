package dev.kgpu.nvml.internal.bindings;

import java.lang.foreign.SymbolLookup;

/**
 * The symbols of the {@code libnvidia-ml.so.1} this process loaded, which the generated bindings resolve their
 * downcalls in ({@code NvmlNative.SYMBOL_LOOKUP}; {@code jextract/regenerate} points jextract's output here).
 *
 * <p>The one hand-written class of this package (it lives in {@code src/main/java}, beside the generated root). It
 * holds the lookup here, in the bindings' own package, so that the bindings depend on nothing else of nvml: the
 * loader ({@code dev.kgpu.nvml.internal.NvmlLibrary}) hands the lookup in once it opened the library.
 *
 * <p>Thread-safety: both methods are synchronised.
 */
public final class NvmlSymbols {

    private static SymbolLookup symbols;

    private NvmlSymbols() {
    }

    /** The loaded library's symbols; the loader calls this once, before any binding is used. */
    public static synchronized void use(SymbolLookup loaded) {
        symbols = loaded;
    }

    /**
     * The loaded library's symbols.
     *
     * @throws IllegalStateException when no library was loaded yet
     */
    public static synchronized SymbolLookup lookup() {
        if (symbols == null) {
            throw new IllegalStateException("NVML bindings were used before NvmlLibrary.load opened libnvidia-ml.so.1");
        }
        return symbols;
    }
}
