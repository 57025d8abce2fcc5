package dev.kgpu.exporter.counters;

import java.util.List;
import java.util.Optional;

/**
 * The rows of a counters file the exporter will serve, in file order.
 *
 * @param source    where the rows came from (a path, or {@code built-in default-counters.csv})
 * @param metrics   rows that become metric families ({@code DCGM_FI_*} and {@code DCGM_EXP_*})
 * @param labels    {@code label} rows, rendered as labels on every series
 * @param notServed rows naming a DCGM field that kgpu cannot read from NVML; skipped with one warning
 */
public record CounterSet(String source, List<Counter> metrics, List<Counter> labels, List<Counter> notServed) {

    public CounterSet {
        metrics = List.copyOf(metrics);
        labels = List.copyOf(labels);
        notServed = List.copyOf(notServed);
    }

    public Optional<Counter> metric(String fieldName) {
        return metrics.stream().filter(c -> c.fieldName().equals(fieldName)).findFirst();
    }

    public Optional<Counter> label(String fieldName) {
        return labels.stream().filter(c -> c.fieldName().equals(fieldName)).findFirst();
    }

    /** The profiling rows ({@code DCGM_FI_PROF_*}) among the metrics. */
    public List<Counter> profiling() {
        return metrics.stream().filter(Counter::isProfiling).toList();
    }
}
