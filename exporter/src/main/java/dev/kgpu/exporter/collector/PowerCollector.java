package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_POWER_USAGE} ({@code nvmlDeviceGetPowerUsage} milliwatts / 1000, a double in watts as
 * DCGM stores it) and {@code DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION}
 * ({@code nvmlDeviceGetTotalEnergyConsumption}, millijoules).
 */
final class PowerCollector extends GpuFieldCollector {

    PowerCollector(CounterSet counters) {
        super(counters, Set.of(Reading.TELEMETRY), List.of(
                new Field("DCGM_FI_DEV_POWER_USAGE", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.powerMilliwatts().isPresent()
                                ? Optional.of(Values.of(t.powerMilliwatts().getAsLong() / 1000.0)) : Optional.empty())),
                new Field("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.totalEnergyMillijoules().isPresent()
                                ? Optional.of(Values.of(t.totalEnergyMillijoules().getAsLong())) : Optional.empty()))));
    }
}
