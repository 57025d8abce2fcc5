package dev.kgpu.validator.core;

import java.util.List;

/**
 * The {@code *-ready} files in {@code OUTPUT_DIR} that other agents' init containers wait on. Writes are
 * atomic: a reader sees either no file or the whole file.
 */
public interface StatusFiles {

    /** Removes the component's file if present. */
    void remove(Component component);

    /** Atomically writes the component's file with these lines (each followed by a newline). */
    void write(Component component, List<String> lines);

    boolean exists(Component component);

    /**
     * Atomically writes gpu-operator's {@value GpuWorkload#STATUS_FILE} file (the workload and a newline), which
     * its sandbox and kata device plugins' init containers read.
     */
    void writeWorkloadType(GpuWorkload workload);

    /** Removes every {@code *-ready} file in the directory (NVIDIA's {@code CLEANUP_ALL} and preStop). */
    void removeAllReadyFiles();
}
