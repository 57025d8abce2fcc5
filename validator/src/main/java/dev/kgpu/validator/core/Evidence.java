package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;

/**
 * What a passing component showed.
 *
 * @param summary     one line for the verdict, e.g. {@code driver 550.54.15, 8 GPUs answered}
 * @param statusLines lines for the component's {@code *-ready} file (empty for an empty file, as NVIDIA
 *                    writes every file but {@code driver-ready})
 */
public record Evidence(String summary, List<String> statusLines) {

    public Evidence {
        Objects.requireNonNull(summary, "summary");
        statusLines = List.copyOf(statusLines);
    }

    public static Evidence of(String summary) {
        return new Evidence(summary, List.of());
    }
}
