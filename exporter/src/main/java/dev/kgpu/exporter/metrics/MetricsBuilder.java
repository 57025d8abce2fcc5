package dev.kgpu.exporter.metrics;

import dev.kgpu.exporter.counters.Counter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Collects one collection's series, family by family. Every row gets its entity's label rows; families
 * come out in counters-file order, and a family without series is left out (no {@code # HELP} line), as
 * dcgm-exporter does.
 *
 * <p>Not thread-safe: one collection thread fills one builder.
 */
public final class MetricsBuilder {

    private final Map<Counter, List<MetricRow>> rows = new LinkedHashMap<>();
    private final Function<Entity, SortedMap<String, String>> labelRows;

    /**
     * @param order     every metric counter, in file order
     * @param labelRows the label-row values of an entity ({@code DCGM_FI_DRIVER_VERSION} and the like)
     */
    public MetricsBuilder(List<Counter> order, Function<Entity, SortedMap<String, String>> labelRows) {
        for (Counter counter : order) {
            rows.put(counter, new ArrayList<>());
        }
        this.labelRows = labelRows;
    }

    public void add(Counter counter, Entity entity, String value) {
        add(counter, entity, Map.of(), Map.of(), value);
    }

    public void add(Counter counter, Entity entity, Map<String, String> labels, Map<String, String> attributes,
                    String value) {
        List<MetricRow> family = rows.get(counter);
        if (family == null) {
            throw new IllegalArgumentException(counter.fieldName() + " is not a metric of this counters file");
        }
        SortedMap<String, String> all = new TreeMap<>(labelRows.apply(entity));
        all.putAll(labels);
        family.add(new MetricRow(entity, all, new TreeMap<>(attributes), value));
    }

    public List<MetricFamily> build() {
        List<MetricFamily> families = new ArrayList<>();
        rows.forEach((counter, list) -> {
            if (!list.isEmpty()) {
                families.add(new MetricFamily(counter, list));
            }
        });
        return families;
    }
}
