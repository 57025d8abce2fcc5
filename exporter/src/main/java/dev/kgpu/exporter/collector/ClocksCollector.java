package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@code DCGM_FI_DEV_SM_CLOCK}, {@code DCGM_FI_DEV_MEM_CLOCK}: {@code nvmlDeviceGetClockInfo}, MHz. */
final class ClocksCollector extends GpuFieldCollector {

    ClocksCollector(CounterSet counters) {
        super(counters, Set.of(Reading.TELEMETRY), List.of(
                new Field("DCGM_FI_DEV_SM_CLOCK", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.smClockMhz().isPresent() ? Optional.of(Values.of(t.smClockMhz().getAsInt())) : Optional.empty())),
                new Field("DCGM_FI_DEV_MEM_CLOCK", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.memoryClockMhz().isPresent() ? Optional.of(Values.of(t.memoryClockMhz().getAsInt())) : Optional.empty()))));
    }
}
