package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.NvmlException;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.internal.bindings.NvmlSymbols;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The process-wide {@code libnvidia-ml.so.1}, opened once with {@link SymbolLookup#libraryLookup(Path, Arena)}
 * in the global arena. It is never unloaded: the generated bindings cache downcall handles whose addresses
 * point into it. Its symbols go to {@link NvmlSymbols}, where the generated bindings resolve them.
 *
 * <p>Thread-safety: {@link #load} and {@link #symbols} are synchronised; {@link #has} uses a concurrent
 * cache.
 */
public final class NvmlLibrary {

    private static Loaded loaded;

    private NvmlLibrary() {
    }

    /** The path and symbols of the loaded library. */
    public record Loaded(Path path, SymbolLookup symbols) {
    }

    /**
     * Loads the library the options name, or returns the one already loaded when it is the same file.
     *
     * @throws NvmlException.LibraryNotFound naming every path tried, when none loads, or when another
     *                                       library file is already loaded in this process
     */
    public static synchronized Loaded load(NvmlOptions options) {
        List<Path> candidates = candidates(options);
        if (loaded != null) {
            return alreadyLoaded(options, candidates);
        }
        List<String> tried = new ArrayList<>();
        IllegalArgumentException failure = null;
        for (Path candidate : candidates) {
            tried.add(candidate.toString());
            if (!candidate.isAbsolute() || Files.isRegularFile(candidate)) {
                try {
                    loaded = new Loaded(candidate, SymbolLookup.libraryLookup(candidate, Arena.global()));
                    NvmlSymbols.use(loaded.symbols());
                    return loaded;
                } catch (IllegalArgumentException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (options.library().isPresent()) {
                break; // an explicit library wins: never fall back to another one silently
            }
        }
        throw new NvmlException.LibraryNotFound(tried, failure);
    }

    /**
     * A later {@link #load}: the library already loaded answers, unless the options name another file
     * (explicitly, or as the first library file found under their driver root).
     */
    private static Loaded alreadyLoaded(NvmlOptions options, List<Path> candidates) {
        Path named = options.library().orElse(null);
        if (named == null) {
            for (Path candidate : candidates) {
                if (candidate.isAbsolute() && Files.isRegularFile(candidate)) {
                    named = candidate;
                    break;
                }
            }
        }
        if (named == null || sameFile(loaded.path(), named)) {
            return loaded;
        }
        throw new NvmlException.LibraryNotFound(List.of(named.toString()),
                new IllegalStateException("this process already loaded NVML from " + loaded.path()
                        + "; a process can load only one libnvidia-ml.so.1"));
    }

    /** Where {@link #load} looks, in order: the explicit file, the driver root's folders, the system loader. */
    static List<Path> candidates(NvmlOptions options) {
        List<Path> paths = new ArrayList<>();
        options.library().ifPresent(paths::add);
        for (String folder : NvmlOptions.LIBRARY_FOLDERS) {
            paths.add(options.driverRoot().resolve(folder).resolve(NvmlOptions.LIBRARY_NAME));
        }
        paths.add(Path.of(NvmlOptions.LIBRARY_NAME)); // a bare name: dlopen searches the system loader's path
        return paths;
    }

    /** Symbols of the loaded library ({@link NvmlSymbols#lookup}, which the generated bindings resolve in). */
    static SymbolLookup symbols() {
        return NvmlSymbols.lookup();
    }

    /**
     * Whether the loaded library exports {@code symbol}. Functions newer than the oldest supported driver
     * are looked up through this first, because the generated bindings fail class initialisation on a
     * missing symbol; a missing function reads as NOT_SUPPORTED.
     */
    static boolean has(String symbol) {
        return PRESENT.computeIfAbsent(symbol, name -> symbols().find(name).isPresent());
    }

    private static final java.util.concurrent.ConcurrentHashMap<String, Boolean> PRESENT =
            new java.util.concurrent.ConcurrentHashMap<>();

    private static boolean sameFile(Path a, Path b) {
        try {
            return Files.isSameFile(a, b);
        } catch (java.io.IOException e) {
            return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
        }
    }
}
