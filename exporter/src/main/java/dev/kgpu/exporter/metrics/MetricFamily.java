package dev.kgpu.exporter.metrics;

import dev.kgpu.exporter.counters.Counter;

import java.util.List;

/** One counters-file row with the series it produced in one collection. */
public record MetricFamily(Counter counter, List<MetricRow> rows) {

    public MetricFamily {
        rows = List.copyOf(rows);
    }
}
