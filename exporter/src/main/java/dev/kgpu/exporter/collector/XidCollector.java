package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.XidMessages;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricsBuilder;
import dev.kgpu.exporter.metrics.Values;

import java.util.Map;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_XID_ERRORS}: the last XID NVML's event stream ({@code nvmlEventSetWait}) reported for
 * the GPU, with attributes {@code err_code} and {@code err_msg} (dcgm-exporter's text for the code); 0 and
 * "No Error" until the first one.
 */
final class XidCollector implements Collector {

    private final Counter counter;
    private final XidHistory history;

    XidCollector(Counter counter, XidHistory history) {
        this.counter = counter;
        this.history = history;
    }

    @Override
    public Set<Reading> readings() {
        return Set.of();
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        for (GpuSample gpu : node.gpus()) {
            long xid = history.last(gpu.gpu().gpuUuid()).orElse(0);
            Map<String, String> attributes = Map.of("err_code", Long.toString(xid), "err_msg", XidMessages.of(xid));
            for (Entity entity : gpu.entities()) {
                out.add(counter, entity, Map.of(), attributes, Values.of(xid));
            }
        }
    }
}
