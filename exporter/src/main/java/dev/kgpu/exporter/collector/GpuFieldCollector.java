package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricsBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The common shape of GPU-wide fields: one value per GPU, printed on the GPU's entity, or on each of its
 * GPU instances when MIG is on (DCGM answers a GPU-level field asked of a GPU instance with the parent
 * GPU's value). A field marked {@code gpuOnly} is left out for GPU instances, as DCGM leaves out
 * utilisation there.
 */
abstract class GpuFieldCollector implements Collector {

    /** One field this collector may serve. */
    record Field(String name, boolean gpuOnly, Function<GpuSample, Optional<String>> value) {
    }

    private record Bound(Counter counter, Field field) {
    }

    private final List<Bound> fields = new ArrayList<>();
    private final Set<Reading> readings;

    GpuFieldCollector(CounterSet counters, Set<Reading> readings, List<Field> candidates) {
        for (Field field : candidates) {
            counters.reading(field.name()).forEach(counter -> fields.add(new Bound(counter, field)));
        }
        this.readings = Set.copyOf(readings);
    }

    /** Whether the counters file names any field of this collector. */
    boolean active() {
        return !fields.isEmpty();
    }

    @Override
    public Set<Reading> readings() {
        return readings;
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        for (Bound bound : fields) {
            for (GpuSample gpu : node.gpus()) {
                Optional<String> value = bound.field.value().apply(gpu);
                if (value.isEmpty()) {
                    continue;
                }
                for (Entity entity : gpu.entities()) {
                    if (bound.field.gpuOnly() && entity.isGpuInstance()) {
                        continue;
                    }
                    out.add(bound.counter, entity, value.get());
                }
            }
        }
    }
}
