package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricsBuilder;
import dev.kgpu.exporter.metrics.Values;
import dev.kgpu.nvml.NvLinkErrorTotals;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * NVLink: {@code DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL} and the error totals
 * ({@code DCGM_FI_DEV_NVLINK_{CRC_FLIT,CRC_DATA,REPLAY,RECOVERY}_ERROR_COUNT_TOTAL},
 * {@code nvmlDeviceGetNvLinkErrorCounter} summed over links).
 *
 * <p>Despite its {@code counter} row, DCGM's bandwidth "total" is a rate: the growth of NVML's data
 * throughput counters ({@code NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX + _RX}, KiB) since the previous sample,
 * per second, divided by 1000 (about MB/s), printed as an integer; 0 on the first sample and when the
 * counters read 0. kgpu computes it the same way between two collections. GPUs without NVLink have no
 * series.
 */
final class NvLinkCollector implements Collector {

    private record Previous(long sumKiB, Instant at) {
    }

    private final List<Counter> bandwidth;
    private final Map<Counter, ToLongFunction<NvLinkErrorTotals>> errors = new HashMap<>();
    private final Map<String, Previous> previous = new HashMap<>();

    NvLinkCollector(CounterSet counters) {
        bandwidth = counters.reading("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL");
        bind(counters, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", NvLinkErrorTotals::crcFlitErrors);
        bind(counters, "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", NvLinkErrorTotals::crcDataErrors);
        bind(counters, "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", NvLinkErrorTotals::replayErrors);
        bind(counters, "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", NvLinkErrorTotals::recoveryErrors);
    }

    private void bind(CounterSet counters, String name, ToLongFunction<NvLinkErrorTotals> value) {
        counters.reading(name).forEach(counter -> errors.put(counter, value));
    }

    boolean active() {
        return !bandwidth.isEmpty() || !errors.isEmpty();
    }

    @Override
    public Set<Reading> readings() {
        EnumSet<Reading> readings = EnumSet.noneOf(Reading.class);
        if (!bandwidth.isEmpty()) {
            readings.add(Reading.TELEMETRY);
        }
        if (!errors.isEmpty()) {
            readings.add(Reading.NVLINK_ERRORS);
        }
        return readings;
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        for (GpuSample gpu : node.gpus()) {
            if (!bandwidth.isEmpty()) {
                gpu.telemetry().ifPresent(t -> {
                    if (t.nvLinkDataKiB().isPresent()) {
                        String value = Values.of(rate(gpu.gpu().gpuUuid(), t.nvLinkDataKiB().getAsLong(), t.readAt()));
                        for (Counter counter : bandwidth) {
                            for (Entity entity : gpu.entities()) {
                                out.add(counter, entity, value);
                            }
                        }
                    }
                });
            }
            gpu.nvLinkErrors().ifPresent(totals -> errors.forEach((counter, pick) -> {
                String value = Values.of(pick.applyAsLong(totals));
                for (Entity entity : gpu.entities()) {
                    out.add(counter, entity, value);
                }
            }));
        }
    }

    private long rate(String uuid, long sumKiB, Instant at) {
        Previous before = previous.put(uuid, new Previous(sumKiB, at));
        if (sumKiB == 0 || before == null) {
            return 0;
        }
        double seconds = Duration.between(before.at, at).toNanos() / 1e9;
        if (seconds <= 0) {
            return 0;
        }
        return (long) ((sumKiB - before.sumKiB) / seconds / 1000.0);
    }
}
