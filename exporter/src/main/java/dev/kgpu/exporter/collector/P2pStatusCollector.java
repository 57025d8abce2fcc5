package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.metrics.MetricsBuilder;
import dev.kgpu.exporter.metrics.Values;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code DCGM_EXP_P2P_STATUS}: for every GPU and every other GPU, whether they reach each other
 * peer-to-peer over NVLink ({@code nvmlDeviceGetP2PStatus(NVML_P2P_CAPS_INDEX_NVLINK)}, which DCGM's
 * {@code dcgmGetNvLinkP2PStatus} reads), as dcgm-exporter prints it: labels {@code peer_gpu} (the other GPU's
 * index) and {@code link_status} ({@code OK}, {@code ChipsetNotSupported}, {@code GPUNotSupported},
 * {@code TopologyNotSupported}, {@code DisabledByRegKey}, {@code NotSupported}, {@code Unknown}), value the
 * status's number (0 = OK). On the GPU's own entity; n GPUs make n(n-1) series and NVML calls.
 */
final class P2pStatusCollector implements Collector {

    private final Counter counter;

    P2pStatusCollector(Counter counter) {
        this.counter = counter;
    }

    @Override
    public Set<Reading> readings() {
        return Set.of(Reading.P2P_STATUS);
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        for (GpuSample gpu : node.gpus()) {
            new TreeMap<>(gpu.nvLinkP2p()).forEach((peer, status) -> out.add(counter, gpu.gpu(),
                    Map.of("peer_gpu", Integer.toString(peer), "link_status", status.label()), Map.of(),
                    Values.of(status.nvmlValue())));
        }
    }
}
