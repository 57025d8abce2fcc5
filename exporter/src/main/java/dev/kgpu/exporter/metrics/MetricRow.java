package dev.kgpu.exporter.metrics;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One series of one family: its entity, its labels (the counters file's label rows plus the family's own,
 * such as {@code xid} and {@code window_size_in_ms}), its attributes ({@code err_code}, {@code err_msg},
 * {@code container}, {@code namespace}, {@code pod}, {@code vgpu}) and its formatted value. Labels and
 * attributes are each printed in key order, labels first, as dcgm-exporter's template does.
 */
public record MetricRow(Entity entity, SortedMap<String, String> labels, SortedMap<String, String> attributes,
                        String value) {

    public MetricRow {
        if (entity == null || labels == null || attributes == null || value == null) {
            throw new IllegalArgumentException("a metric row needs an entity, labels, attributes and a value");
        }
        labels = Collections.unmodifiableSortedMap(new TreeMap<>(labels));
        attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    }

    /** This row with more attributes (pod attribution). */
    public MetricRow withAttributes(java.util.Map<String, String> more) {
        TreeMap<String, String> merged = new TreeMap<>(attributes);
        merged.putAll(more);
        TreeMap<String, String> keptLabels = new TreeMap<>(labels);
        keptLabels.keySet().removeAll(merged.keySet());
        return new MetricRow(entity, keptLabels, merged, value);
    }
}
