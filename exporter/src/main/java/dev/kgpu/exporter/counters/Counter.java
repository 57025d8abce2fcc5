package dev.kgpu.exporter.counters;

/**
 * One row of a counters file.
 *
 * @param fieldName the name as the file writes it, also the metric name ({@code DCGM_FI_DEV_SM_CLOCK}, or a
 *                  dcgm-exporter 1.x name such as {@code dcgm_sm_clock})
 * @param field     the field kgpu reads for it, under dcgm-exporter's 2.x to 4.8 name: {@code fieldName} itself,
 *                  or for a 1.x name the DCGM field of the same id ({@code dcgm_sm_clock} reads
 *                  {@code DCGM_FI_DEV_SM_CLOCK}, as DCGM resolves both to field 100)
 * @param type      the Prometheus type, or {@link MetricType#LABEL}
 * @param help      the help text, printed after {@code # HELP}
 * @param line      the row's line number in its file (1-based), for messages
 */
public record Counter(String fieldName, String field, MetricType type, String help, int line) {

    public Counter {
        if (fieldName == null || fieldName.isEmpty() || field == null || field.isEmpty() || type == null || help == null) {
            throw new IllegalArgumentException("a counter needs a name, a field, a type and a help text");
        }
    }

    /** A row whose name is the field it reads. */
    public Counter(String fieldName, MetricType type, String help, int line) {
        this(fieldName, fieldName, type, help, line);
    }

    /** DCGM's profiling (DCP) fields, ids 1000 to 1099. */
    public boolean isProfiling() {
        return field.startsWith("DCGM_FI_PROF_");
    }
}
