package dev.kgpu.validator.core;

import dev.kgpu.config.v1.WireValue;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * gpu-operator's GPU workload configuration of a node, which decides what its sandbox components check: the node
 * label {@value #LABEL}, or the default ({@code DEFAULT_GPU_WORKLOAD_CONFIG}, else {@code container}) when the
 * label is missing or names no workload, as NVIDIA's validator reads it ({@code getWorkloadConfig}).
 */
public enum GpuWorkload implements WireValue {
    CONTAINER("container"),
    VM_PASSTHROUGH("vm-passthrough"),
    VM_VGPU("vm-vgpu");

    /** The node label gpu-operator's users set per node. */
    public static final String LABEL = "nvidia.com/gpu.workload.config";
    /**
     * The file in {@code OUTPUT_DIR} that NVIDIA's validator writes before each sandbox component and that
     * gpu-operator's sandbox and kata device plugins' init containers read.
     */
    public static final String STATUS_FILE = "workload-type";

    private final String wireName;

    GpuWorkload(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    /** The workload the node's labels name, or {@code fallback} when they name none (NVIDIA logs and falls back). */
    public static GpuWorkload of(Map<String, String> labels, GpuWorkload fallback) {
        return Optional.ofNullable(labels.get(LABEL))
                .flatMap(value -> Arrays.stream(values()).filter(w -> w.wireName.equals(value)).findFirst())
                .orElse(fallback);
    }

    @Override
    public String toString() {
        return wireName;
    }
}
