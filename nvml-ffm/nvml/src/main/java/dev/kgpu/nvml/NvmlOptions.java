package dev.kgpu.nvml;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where to find {@code libnvidia-ml.so.1}.
 *
 * <p>Search order: {@code library} when present (from {@code KGPU_NVML_LIBRARY}); otherwise the usual
 * library folders under {@code driverRoot} (from {@code NVIDIA_DRIVER_ROOT}, default {@code /}), as listed
 * by {@link #LIBRARY_FOLDERS}; otherwise the system loader ({@code dlopen("libnvidia-ml.so.1")}).
 *
 * @param library    an explicit library file; wins over everything else
 * @param driverRoot the root of the driver installation, {@code /} for a host driver or e.g.
 *                   {@code /run/nvidia/driver} for a containerised one
 */
public record NvmlOptions(Optional<Path> library, Path driverRoot) {

    /** The library's file name as the driver installs it. */
    public static final String LIBRARY_NAME = "libnvidia-ml.so.1";

    /** Folders under the driver root searched for {@link #LIBRARY_NAME}, in order. */
    public static final List<String> LIBRARY_FOLDERS = List.of(
            "usr/lib64",
            "usr/lib/x86_64-linux-gnu",
            "usr/lib/aarch64-linux-gnu",
            "lib64",
            "lib/x86_64-linux-gnu",
            "lib/aarch64-linux-gnu",
            "usr/lib",
            "lib",
            "usr/lib/wsl/lib");

    public NvmlOptions {
        if (library == null) {
            throw new IllegalArgumentException("library was 'null' but it must be present or empty");
        }
        if (driverRoot == null) {
            throw new IllegalArgumentException("driverRoot was 'null' but it must name a folder");
        }
    }

    /** Options for the system's driver, found under {@code /} or by the system loader. */
    public static NvmlOptions defaults() {
        return new NvmlOptions(Optional.empty(), Path.of("/"));
    }

    /** Options for an explicit library file. */
    public static NvmlOptions ofLibrary(Path library) {
        return new NvmlOptions(Optional.of(library), Path.of("/"));
    }

    /**
     * Reads {@code KGPU_NVML_LIBRARY} and {@code NVIDIA_DRIVER_ROOT} through {@code environment}
     * ({@code System::getenv} in production), so tests never touch the real environment.
     */
    public static NvmlOptions fromEnvironment(Function<String, String> environment) {
        String library = environment.apply("KGPU_NVML_LIBRARY");
        String root = environment.apply("NVIDIA_DRIVER_ROOT");
        return new NvmlOptions(
                library == null || library.isBlank() ? Optional.empty() : Optional.of(Path.of(library)),
                root == null || root.isBlank() ? Path.of("/") : Path.of(root));
    }
}
