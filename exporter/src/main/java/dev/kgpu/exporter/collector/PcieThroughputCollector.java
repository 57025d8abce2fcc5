package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;
import dev.kgpu.nvml.PcieThroughput;

import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * {@code DCGM_FI_DEV_PCIE_TX_THROUGHPUT}, {@code DCGM_FI_DEV_PCIE_RX_THROUGHPUT} (dcgm-exporter 2.x's default
 * rows, {@code dcgm_pcie_tx/rx_throughput} in 1.x): {@code nvmlDeviceGetPcieThroughput}, the KB/s of NVML's
 * last 20 ms sample, as DCGM reads fields 200 and 201. NVML samples each direction for 20 ms on a real GPU,
 * so a node of 8 GPUs spends about 320 ms per collection on these two rows.
 */
final class PcieThroughputCollector extends GpuFieldCollector {

    PcieThroughputCollector(CounterSet counters) {
        super(counters, Set.of(Reading.PCIE_THROUGHPUT), List.of(
                field("DCGM_FI_DEV_PCIE_TX_THROUGHPUT", PcieThroughput::txKBps),
                field("DCGM_FI_DEV_PCIE_RX_THROUGHPUT", PcieThroughput::rxKBps)));
    }

    private static Field field(String name, ToLongFunction<PcieThroughput> kbps) {
        return new Field(name, false, gpu -> gpu.pcieThroughput().map(p -> Values.of(kbps.applyAsLong(p))));
    }
}
