package dev.kgpu.exporter.app;

import dev.kgpu.exporter.collector.MetricsCollection;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.exposition.ExpositionRenderer;
import dev.kgpu.exporter.exposition.Snapshot;
import dev.kgpu.exporter.nvml.NodeSampleReader;
import dev.kgpu.exporter.pods.PodAttributionTracker;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.HealthEvent;
import dev.kgpu.nvml.HealthMonitor;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlException;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * NVML opened, and the collection of a counter set built on it: the supervisor's {@link CollectionHandler.Node}.
 * {@link #use} swaps the counters (SIGHUP) on the same NVML session. Used on the supervisor thread only.
 */
final class NvmlNode implements CollectionHandler.Node {

    private static final System.Logger LOG = System.getLogger(NvmlNode.class.getName());

    /** What every collection shares, whatever the counters. */
    record Parts(XidHistory xids, Duration xidCountWindow, Duration clockEventsCountWindow,
                 Optional<PodAttributionTracker> pods, ExpositionRenderer renderer, Consumer<NvmlException> errors,
                 InstantSource clock) {
    }

    private final Nvml nvml;
    private final Parts parts;
    private NodeSampleReader reader;
    private CollectionCycle cycle;

    private NvmlNode(Nvml nvml, Parts parts) {
        this.nvml = nvml;
        this.parts = parts;
    }

    /** Opens NVML through {@code opener} and builds the collection of {@code counters}. */
    static NvmlNode open(java.util.function.Supplier<Nvml> opener, Parts parts, CounterSet counters) {
        NvmlNode node = new NvmlNode(opener.get(), parts);
        try {
            node.use(counters);
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
        return node;
    }

    @Override
    public void use(CounterSet counters) {
        MetricsCollection collection = MetricsCollection.forCounters(counters, parts.xids(), parts.xidCountWindow(),
                parts.clockEventsCountWindow(), parts.clock());
        NodeSampleReader next = new NodeSampleReader(nvml, collection.readings(), parts.errors(), parts.clock());
        warnAboutProfiling(counters, next.devices());
        if (reader != null) {
            reader.close();
        }
        reader = next;
        cycle = new CollectionCycle(reader, collection, parts.pods(), parts.renderer());
    }

    @Override
    public Snapshot collect() {
        return cycle.get();
    }

    @Override
    public HealthMonitor watchHealth(Consumer<HealthEvent> listener) {
        return nvml.startHealthMonitor(reader.devices(), listener);
    }

    /** The GPUs NVML reports. */
    int gpus() {
        return reader.devices().size();
    }

    @Override
    public void close() {
        if (reader != null) {
            reader.close();
            reader = null;
        }
        nvml.close();
    }

    private static void warnAboutProfiling(CounterSet counters, List<GpuDevice> devices) {
        List<Counter> profiling = counters.profiling();
        if (profiling.isEmpty()) {
            return;
        }
        List<String> without = devices.stream().filter(d -> !gpm(d))
                .map(d -> d.index() + " (" + d.name() + ")").toList();
        if (!without.isEmpty()) {
            LOG.log(Level.WARNING, "profiling counters {0} come from NVML''s GPM, which GPUs {1} lack"
                            + " (GPM needs Hopper or later); they have no such series",
                    profiling.stream().map(Counter::fieldName).collect(Collectors.joining(", ")), String.join(", ", without));
        }
    }

    private static boolean gpm(GpuDevice device) {
        try {
            return device.gpmSupported();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
