package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricsBuilder;
import dev.kgpu.exporter.metrics.Values;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code DCGM_EXP_XID_ERRORS_COUNT}: per GPU and XID code, how many XIDs NVML reported within the last
 * window, with labels {@code xid} and {@code window_size_in_ms}; one series of value 0 with only
 * {@code window_size_in_ms} when there was none, as dcgm-exporter prints it.
 */
final class XidCountCollector implements Collector {

    private final Counter counter;
    private final XidHistory history;
    private final Duration window;
    private final InstantSource clock;

    XidCountCollector(Counter counter, XidHistory history, Duration window, InstantSource clock) {
        this.counter = counter;
        this.history = history;
        this.window = window;
        this.clock = clock;
    }

    @Override
    public Set<Reading> readings() {
        return Set.of();
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        String windowMs = Long.toString(window.toMillis());
        for (GpuSample gpu : node.gpus()) {
            TreeMap<Long, Integer> counts = history.countsWithin(gpu.gpu().gpuUuid(), clock.instant(), window);
            for (Entity entity : gpu.entities()) {
                if (counts.isEmpty()) {
                    out.add(counter, entity, Map.of("window_size_in_ms", windowMs), Map.of(), "0");
                }
                counts.forEach((xid, count) -> out.add(counter, entity,
                        Map.of("window_size_in_ms", windowMs, "xid", Long.toString(xid)), Map.of(), Values.of(count)));
            }
        }
    }
}
