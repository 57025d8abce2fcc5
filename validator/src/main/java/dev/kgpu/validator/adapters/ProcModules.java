package dev.kgpu.validator.adapters;

import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.KernelModules;
import dev.kgpu.validator.core.Layer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The loaded kernel modules from {@code <host root>/proc/modules}, where {@code lsmod} reads them: one module
 * a line, its name first. A container shares the host's kernel, so {@code /proc/modules} in it is the node's.
 */
public final class ProcModules implements KernelModules {

    /** Far more than any kernel's module list (a few hundred lines of ~100 bytes). */
    private static final long MAX_BYTES = 4L << 20;

    private final Path file;

    public ProcModules(Path hostRoot) {
        this.file = Objects.requireNonNull(hostRoot, "hostRoot").resolve("proc/modules");
    }

    @Override
    public boolean loaded(String module) {
        return lines().stream().anyMatch(line -> line.startsWith(module + " "));
    }

    private List<String> lines() {
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new ComponentFailure(Layer.DRIVER, file + " is larger than " + MAX_BYTES + " bytes; it is no module list");
            }
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new ComponentFailure(Layer.DRIVER, "could not read the kernel's module list " + file + ": " + e, e);
        }
    }
}
