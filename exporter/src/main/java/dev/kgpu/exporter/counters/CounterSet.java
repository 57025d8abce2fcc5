package dev.kgpu.exporter.counters;

import java.util.List;
import java.util.Optional;

/**
 * The rows of a counters file the exporter will serve, in file order.
 *
 * @param source     where the rows came from (a path, or {@code built-in default-counters.csv})
 * @param metrics    rows that become metric families ({@code DCGM_FI_*}, {@code DCGM_EXP_*}, 1.x names)
 * @param labels     {@code label} rows, rendered as labels on every series
 * @param notServed  rows naming a DCGM field that kgpu cannot read from NVML; skipped with one warning
 * @param duplicates rows naming a counter an earlier row already named; skipped with one warning (the first
 *                   row is served, so the exposition never holds a family twice)
 */
public record CounterSet(String source, List<Counter> metrics, List<Counter> labels, List<Counter> notServed,
                         List<Duplicate> duplicates) {

    /** A row naming {@code counter.fieldName()} again; {@code firstLine} is the row that is served. */
    public record Duplicate(Counter counter, int firstLine) {
    }

    public CounterSet {
        metrics = List.copyOf(metrics);
        labels = List.copyOf(labels);
        notServed = List.copyOf(notServed);
        duplicates = List.copyOf(duplicates);
    }

    public CounterSet(String source, List<Counter> metrics, List<Counter> labels, List<Counter> notServed) {
        this(source, metrics, labels, notServed, List.of());
    }

    /** The first metric row that reads {@code field} (a 2.x to 4.8 DCGM name or a {@code DCGM_EXP_*} series). */
    public Optional<Counter> metric(String field) {
        return metrics.stream().filter(c -> c.field().equals(field)).findFirst();
    }

    /**
     * Every metric row that reads {@code field}, in file order: usually one, two when a file names a field
     * under both its 1.x and its current name ({@code dcgm_gpu_temp} and {@code DCGM_FI_DEV_GPU_TEMP}), each
     * a family of its own.
     */
    public List<Counter> reading(String field) {
        return metrics.stream().filter(c -> c.field().equals(field)).toList();
    }

    /** The metric row named {@code name} as the file writes it (the metric name). */
    public Optional<Counter> named(String name) {
        return metrics.stream().filter(c -> c.fieldName().equals(name)).findFirst();
    }

    /** The label row that reads {@code field}. */
    public Optional<Counter> label(String field) {
        return labels.stream().filter(c -> c.field().equals(field)).findFirst();
    }

    /** The profiling rows ({@code DCGM_FI_PROF_*}) among the metrics. */
    public List<Counter> profiling() {
        return metrics.stream().filter(Counter::isProfiling).toList();
    }

    /** How many rows the file had that name a counter, served or not (duplicates included). */
    public int rows() {
        return metrics.size() + labels.size() + notServed.size() + duplicates.size();
    }
}
