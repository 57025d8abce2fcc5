package dev.kgpu.exporter.counters;

/**
 * One row of a counters file.
 *
 * @param fieldName the DCGM field or exporter series name, also the metric name
 * @param type      the Prometheus type, or {@link MetricType#LABEL}
 * @param help      the help text, printed after {@code # HELP}
 * @param line      the row's line number in its file (1-based), for messages
 */
public record Counter(String fieldName, MetricType type, String help, int line) {

    public Counter {
        if (fieldName == null || fieldName.isEmpty() || type == null || help == null) {
            throw new IllegalArgumentException("a counter needs a name, a type and a help text");
        }
    }

    /** DCGM's profiling (DCP) fields, ids 1000 to 1099. */
    public boolean isProfiling() {
        return fieldName.startsWith("DCGM_FI_PROF_");
    }
}
