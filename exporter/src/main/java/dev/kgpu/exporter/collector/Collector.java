package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.metrics.MetricsBuilder;

import java.util.Set;

/**
 * Produces the series of one metric family group (clocks, power, framebuffer, XIDs, ...) from one
 * collection's {@link NodeSample}. A collector exists only when the counters file names one of its
 * fields, and emits only the families the file names.
 *
 * <p>Collectors run on the collection thread only; a stateful one (NVLink bandwidth, clock events)
 * keeps its state between calls without locking.
 */
public interface Collector {

    /** The NVML reads this collector needs in each {@link NodeSample}. */
    Set<Reading> readings();

    /** Adds this collection's series to {@code out}. */
    void collect(NodeSample node, MetricsBuilder out);
}
