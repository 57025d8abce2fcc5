package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS}, {@code DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS},
 * {@code DCGM_FI_DEV_ROW_REMAP_FAILURE} (1 or 0): {@code nvmlDeviceGetRemappedRows}, Ampere and later.
 */
final class RowRemapCollector extends GpuFieldCollector {

    RowRemapCollector(CounterSet counters) {
        super(counters, Set.of(Reading.TELEMETRY), List.of(
                new Field("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.remappedRows()).map(r -> Values.of(r.uncorrectable()))),
                new Field("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.remappedRows()).map(r -> Values.of(r.correctable()))),
                new Field("DCGM_FI_DEV_ROW_REMAP_FAILURE", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.remappedRows()).map(r -> Values.of(r.failed() ? 1 : 0)))));
    }
}
