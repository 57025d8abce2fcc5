package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricsBuilder;
import dev.kgpu.exporter.metrics.Values;
import dev.kgpu.nvml.MemoryInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code DCGM_FI_DEV_FB_TOTAL/FREE/USED/RESERVED}, MiB ({@code nvmlDeviceGetMemoryInfo_v2}, bytes / 2^20
 * rounded down as DCGM does). A GPU instance reports its own framebuffer (the memory of its MIG device).
 * {@code FB_RESERVED} is absent where NVML's v2 query is not available.
 */
final class FramebufferCollector implements Collector {

    private record Bound(Counter counter, Function<MemoryInfo, OptionalLong> mib) {
    }

    private final List<Bound> fields = new ArrayList<>();

    FramebufferCollector(CounterSet counters) {
        bind(counters, "DCGM_FI_DEV_FB_TOTAL", m -> OptionalLong.of(m.totalMiB()));
        bind(counters, "DCGM_FI_DEV_FB_FREE", m -> OptionalLong.of(m.freeMiB()));
        bind(counters, "DCGM_FI_DEV_FB_USED", m -> OptionalLong.of(m.usedMiB()));
        bind(counters, "DCGM_FI_DEV_FB_RESERVED", MemoryInfo::reservedMiB);
    }

    private void bind(CounterSet counters, String name, Function<MemoryInfo, OptionalLong> mib) {
        counters.reading(name).forEach(counter -> fields.add(new Bound(counter, mib)));
    }

    boolean active() {
        return !fields.isEmpty();
    }

    @Override
    public Set<Reading> readings() {
        return Set.of(Reading.TELEMETRY);
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        for (Bound bound : fields) {
            for (GpuSample gpu : node.gpus()) {
                gpu.forEachEntity(GpuInstanceSample::memory, () -> gpu.telemetry().flatMap(t -> t.memory()),
                        (entity, memory) -> emit(out, bound, entity, memory));
            }
        }
    }

    private static void emit(MetricsBuilder out, Bound bound, Entity entity, Optional<MemoryInfo> memory) {
        if (memory.isEmpty()) {
            return;
        }
        OptionalLong mib = bound.mib.apply(memory.get());
        if (mib.isPresent()) {
            out.add(bound.counter, entity, Values.of(mib.getAsLong()));
        }
    }
}
