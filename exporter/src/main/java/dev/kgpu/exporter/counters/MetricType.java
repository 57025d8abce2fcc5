package dev.kgpu.exporter.counters;

import java.util.Locale;

/** The second column of a counters file: the Prometheus type, or {@code label}. */
public enum MetricType {
    GAUGE, COUNTER, HISTOGRAM, SUMMARY,
    /** Not a series: the value becomes a label on every series of the entity. */
    LABEL;

    /** The word written in the file and in {@code # TYPE}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The type named exactly {@code word} (lower case, as dcgm-exporter requires), or null. */
    static MetricType fromWord(String word) {
        for (MetricType type : values()) {
            if (type.word().equals(word)) {
                return type;
            }
        }
        return null;
    }
}
