package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_GPU_UTIL}, {@code DCGM_FI_DEV_MEM_COPY_UTIL} ({@code nvmlDeviceGetUtilizationRates}),
 * {@code DCGM_FI_DEV_ENC_UTIL}, {@code DCGM_FI_DEV_DEC_UTIL} ({@code nvmlDeviceGetEncoder/DecoderUtilization}),
 * percent. Not printed for GPU instances: NVML does not measure them per MIG instance, and DCGM leaves
 * them out there ({@code DCGM_FI_PROF_GR_ENGINE_ACTIVE} is the MIG-aware replacement).
 */
final class UtilizationCollector extends GpuFieldCollector {

    UtilizationCollector(CounterSet counters) {
        super(counters, Set.of(Reading.TELEMETRY), List.of(
                new Field("DCGM_FI_DEV_GPU_UTIL", true, gpu -> gpu.telemetry()
                        .flatMap(t -> t.utilization()).map(u -> Values.of(u.gpuPercent()))),
                new Field("DCGM_FI_DEV_MEM_COPY_UTIL", true, gpu -> gpu.telemetry()
                        .flatMap(t -> t.utilization()).map(u -> Values.of(u.memoryPercent()))),
                new Field("DCGM_FI_DEV_ENC_UTIL", true, gpu -> gpu.telemetry()
                        .flatMap(t -> t.encoderUtilizationPercent().isPresent()
                                ? Optional.of(Values.of(t.encoderUtilizationPercent().getAsInt())) : Optional.empty())),
                new Field("DCGM_FI_DEV_DEC_UTIL", true, gpu -> gpu.telemetry()
                        .flatMap(t -> t.decoderUtilizationPercent().isPresent()
                                ? Optional.of(Values.of(t.decoderUtilizationPercent().getAsInt())) : Optional.empty()))));
    }
}
