package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;
import dev.kgpu.nvml.PerfPolicy;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_*_VIOLATION}: time the clocks were held back, in nanoseconds
 * ({@code nvmlDeviceGetViolationStatus} per {@link PerfPolicy}).
 */
final class ViolationCollector extends GpuFieldCollector {

    ViolationCollector(CounterSet counters) {
        super(counters, Set.of(Reading.VIOLATIONS), List.of(
                field("DCGM_FI_DEV_POWER_VIOLATION", PerfPolicy.POWER),
                field("DCGM_FI_DEV_THERMAL_VIOLATION", PerfPolicy.THERMAL),
                field("DCGM_FI_DEV_SYNC_BOOST_VIOLATION", PerfPolicy.SYNC_BOOST),
                field("DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", PerfPolicy.BOARD_LIMIT),
                field("DCGM_FI_DEV_LOW_UTIL_VIOLATION", PerfPolicy.LOW_UTILIZATION),
                field("DCGM_FI_DEV_RELIABILITY_VIOLATION", PerfPolicy.RELIABILITY)));
    }

    private static Field field(String name, PerfPolicy policy) {
        return new Field(name, false, gpu -> Optional.ofNullable(gpu.violationsNs().get(policy)).map(Values::of));
    }
}
