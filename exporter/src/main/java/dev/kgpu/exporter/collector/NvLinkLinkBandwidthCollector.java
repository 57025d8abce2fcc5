package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.counters.ServedFields;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricsBuilder;
import dev.kgpu.exporter.metrics.Values;
import dev.kgpu.nvml.NvLinkTraffic;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_NVLINK_BANDWIDTH_L0} to {@code _L17} (dcgm-exporter's opt-in {@code _L0} row): one
 * link's bandwidth, computed as {@link NvLinkCollector} computes the total, from that link's own data
 * counters ({@code NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX + _RX} with the link as scope): their growth since
 * the previous collection per second, divided by 1000 (about MB/s); 0 on the first collection. A link the
 * GPU does not have, and a GPU without NVLink, has no series.
 */
final class NvLinkLinkBandwidthCollector implements Collector {

    private record Bound(Counter counter, int link) {
    }

    private record Previous(long sumKiB, Instant at) {
    }

    private final List<Bound> fields = new ArrayList<>();
    private final Map<String, Previous> previous = new HashMap<>();

    NvLinkLinkBandwidthCollector(CounterSet counters) {
        for (int link = 0; link < ServedFields.NVLINK_LINKS; link++) {
            int bound = link;
            counters.reading(ServedFields.NVLINK_LINK_BANDWIDTH + link).forEach(c -> fields.add(new Bound(c, bound)));
        }
    }

    boolean active() {
        return !fields.isEmpty();
    }

    @Override
    public Set<Reading> readings() {
        return Set.of(Reading.NVLINK_TRAFFIC);
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        Map<String, Long> rates = new HashMap<>();
        for (GpuSample gpu : node.gpus()) {
            for (NvLinkTraffic link : gpu.nvLinkTraffic()) {
                String key = gpu.gpu().gpuUuid() + "/" + link.link();
                rates.put(key, rate(key, link.dataTxKiB() + link.dataRxKiB(), node.takenAt()));
            }
        }
        for (Bound bound : fields) {
            for (GpuSample gpu : node.gpus()) {
                Long rate = rates.get(gpu.gpu().gpuUuid() + "/" + bound.link);
                if (rate == null) {
                    continue;
                }
                for (Entity entity : gpu.entities()) {
                    out.add(bound.counter, entity, Values.of(rate));
                }
            }
        }
    }

    private long rate(String key, long sumKiB, Instant at) {
        Previous before = previous.put(key, new Previous(sumKiB, at));
        if (sumKiB == 0 || before == null) {
            return 0;
        }
        double seconds = Duration.between(before.at, at).toNanos() / 1e9;
        return seconds <= 0 ? 0 : (long) ((sumKiB - before.sumKiB) / seconds / 1000.0);
    }
}
