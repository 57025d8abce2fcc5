package dev.kgpu.validator.core;

/** The kernel modules loaded on this node, as {@code lsmod} lists them ({@code /proc/modules}). */
@FunctionalInterface
public interface KernelModules {

    /**
     * Whether a module of this exact name is loaded.
     *
     * @throws ComponentFailure when the list cannot be read
     */
    boolean loaded(String module);
}
