package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@code DCGM_FI_DEV_PCIE_REPLAY_COUNTER}: {@code nvmlDeviceGetPcieReplayCounter}. */
final class PcieCollector extends GpuFieldCollector {

    PcieCollector(CounterSet counters) {
        super(counters, Set.of(Reading.TELEMETRY), List.of(
                new Field("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.pcieReplayCount().isPresent()
                                ? Optional.of(Values.of(t.pcieReplayCount().getAsLong())) : Optional.empty()))));
    }
}
