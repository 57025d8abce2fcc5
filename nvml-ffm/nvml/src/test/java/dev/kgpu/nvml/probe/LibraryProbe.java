package dev.kgpu.nvml.probe;

import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlException;
import dev.kgpu.nvml.NvmlOptions;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Run in a fresh JVM by {@code NvmlErrorsTest}: opens NVML with no explicit library under the driver root
 * given as the argument, and prints what happened. A fresh JVM because a process loads NVML only once.
 */
public final class LibraryProbe {

    private LibraryProbe() {
    }

    public static void main(String[] args) {
        try (Nvml nvml = Nvml.open(new NvmlOptions(Optional.empty(), Path.of(args[0])))) {
            System.out.println("loaded " + nvml.libraryPath());
        } catch (NvmlException.LibraryNotFound e) {
            System.out.println("message " + e.getMessage());
            e.tried().forEach(path -> System.out.println("tried " + path));
            System.exit(3);
        }
    }
}
