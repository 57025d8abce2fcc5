package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_GPU_TEMP} ({@code nvmlDeviceGetTemperature}) and {@code DCGM_FI_DEV_MEMORY_TEMP}
 * (field {@code NVML_FI_DEV_MEMORY_TEMP}, HBM boards only), degrees Celsius.
 */
final class TemperatureCollector extends GpuFieldCollector {

    TemperatureCollector(CounterSet counters) {
        super(counters, Set.of(Reading.TELEMETRY), List.of(
                new Field("DCGM_FI_DEV_MEMORY_TEMP", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.memoryTemperatureCelsius().isPresent()
                                ? Optional.of(Values.of(t.memoryTemperatureCelsius().getAsInt())) : Optional.empty())),
                new Field("DCGM_FI_DEV_GPU_TEMP", false, gpu -> gpu.telemetry()
                        .flatMap(t -> t.gpuTemperatureCelsius().isPresent()
                                ? Optional.of(Values.of(t.gpuTemperatureCelsius().getAsInt())) : Optional.empty()))));
    }
}
