package dev.kgpu.exporter.collector;

import dev.kgpu.nvml.GpmMetrics;
import dev.kgpu.nvml.MemoryInfo;

import java.util.List;
import java.util.Optional;

/**
 * One GPU instance of a MIG-enabled GPU in one collection.
 *
 * @param id       NVML's GPU-instance id ({@code GPU_I_ID})
 * @param profile  the GPU-instance profile name, e.g. {@code 3g.40gb} ({@code GPU_I_PROFILE})
 * @param migUuids the {@code MIG-…} UUIDs of the MIG devices (compute instances) inside it
 * @param memory   framebuffer memory of the instance, when read
 * @param gpm      GPM metrics of the instance over the last interval, when the GPU has GPM
 */
public record GpuInstanceSample(int id, String profile, List<String> migUuids, Optional<MemoryInfo> memory,
                                Optional<GpmMetrics> gpm) {

    public GpuInstanceSample {
        migUuids = List.copyOf(migUuids);
    }
}
