package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;

/**
 * What a passing component showed.
 *
 * @param summary     one line for the verdict, e.g. {@code driver 550.54.15, 8 GPUs answered}
 * @param statusLines lines for the component's {@code *-ready} file (empty for an empty file, as NVIDIA
 *                    writes every file but {@code driver-ready})
 * @param statusFile  whether the component's {@code *-ready} file is written (false for a component NVIDIA
 *                    skips without writing it, such as {@code mofed} without GPUDirect RDMA)
 */
public record Evidence(String summary, List<String> statusLines, boolean statusFile) {

    public Evidence {
        Objects.requireNonNull(summary, "summary");
        statusLines = List.copyOf(statusLines);
    }

    public Evidence(String summary, List<String> statusLines) {
        this(summary, statusLines, true);
    }

    public static Evidence of(String summary) {
        return new Evidence(summary, List.of());
    }

    /** A pass that writes no status file: the component did not apply to this node. */
    public static Evidence withoutStatusFile(String summary) {
        return new Evidence(summary, List.of(), false);
    }
}
