package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricsBuilder;
import dev.kgpu.exporter.metrics.Values;
import dev.kgpu.nvml.GpmMetrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * DCGM's profiling fields ({@code DCGM_FI_PROF_*}) from NVML's GPU performance metrics (GPM, Hopper and
 * later), per GPU or per GPU instance, in DCGM's units: activities as ratios in [0, 1] printed as doubles,
 * PCIe traffic as bytes per second printed as integers (DCGM stores those two as INT64). A GPU without GPM
 * has none of these series; the first collection only primes the samplers, and a metric NVML could not
 * compute for the interval (NaN) has no series, as DCGM's blank values have none.
 */
final class ProfilingCollector implements Collector {

    private record Bound(Counter counter, Function<GpmMetrics, String> value) {
    }

    private final List<Bound> fields = new ArrayList<>();

    ProfilingCollector(CounterSet counters) {
        bind(counters, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", m -> Values.of(m.graphicsEngineActive()));
        bind(counters, "DCGM_FI_PROF_SM_ACTIVE", m -> Values.of(m.smActive()));
        bind(counters, "DCGM_FI_PROF_SM_OCCUPANCY", m -> Values.of(m.smOccupancy()));
        bind(counters, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", m -> Values.of(m.tensorActive()));
        bind(counters, "DCGM_FI_PROF_DRAM_ACTIVE", m -> Values.of(m.dramActive()));
        bind(counters, "DCGM_FI_PROF_PIPE_FP64_ACTIVE", m -> Values.of(m.fp64Active()));
        bind(counters, "DCGM_FI_PROF_PIPE_FP32_ACTIVE", m -> Values.of(m.fp32Active()));
        bind(counters, "DCGM_FI_PROF_PIPE_FP16_ACTIVE", m -> Values.of(m.fp16Active()));
        bind(counters, "DCGM_FI_PROF_PCIE_TX_BYTES", m -> Values.of((long) m.pcieTxBytesPerSecond()));
        bind(counters, "DCGM_FI_PROF_PCIE_RX_BYTES", m -> Values.of((long) m.pcieRxBytesPerSecond()));
    }

    private void bind(CounterSet counters, String name, Function<GpmMetrics, String> value) {
        counters.reading(name).forEach(counter -> fields.add(new Bound(counter, value)));
    }

    /** The value of one GPM metric; NaN (NVML could not compute it this interval) means no series. */
    private static boolean computed(GpmMetrics metrics, String field) {
        double value = switch (field) {
            case "DCGM_FI_PROF_GR_ENGINE_ACTIVE" -> metrics.graphicsEngineActive();
            case "DCGM_FI_PROF_SM_ACTIVE" -> metrics.smActive();
            case "DCGM_FI_PROF_SM_OCCUPANCY" -> metrics.smOccupancy();
            case "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" -> metrics.tensorActive();
            case "DCGM_FI_PROF_DRAM_ACTIVE" -> metrics.dramActive();
            case "DCGM_FI_PROF_PIPE_FP64_ACTIVE" -> metrics.fp64Active();
            case "DCGM_FI_PROF_PIPE_FP32_ACTIVE" -> metrics.fp32Active();
            case "DCGM_FI_PROF_PIPE_FP16_ACTIVE" -> metrics.fp16Active();
            case "DCGM_FI_PROF_PCIE_TX_BYTES" -> metrics.pcieTxBytesPerSecond();
            case "DCGM_FI_PROF_PCIE_RX_BYTES" -> metrics.pcieRxBytesPerSecond();
            default -> Double.NaN;
        };
        return !Double.isNaN(value);
    }

    boolean active() {
        return !fields.isEmpty();
    }

    @Override
    public Set<Reading> readings() {
        return Set.of(Reading.GPM);
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        for (Bound bound : fields) {
            for (GpuSample gpu : node.gpus()) {
                gpu.forEachEntity(GpuInstanceSample::gpm, gpu::gpm, (entity, gpm) -> emit(out, bound, entity, gpm));
            }
        }
    }

    private static void emit(MetricsBuilder out, Bound bound, Entity entity, Optional<GpmMetrics> gpm) {
        gpm.filter(metrics -> computed(metrics, bound.counter.field()))
                .ifPresent(metrics -> out.add(bound.counter, entity, bound.value.apply(metrics)));
    }
}
