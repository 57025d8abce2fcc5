package dev.kgpu.exporter.app;

import dev.kgpu.exporter.collector.MetricsCollection;
import dev.kgpu.exporter.collector.NodeSample;
import dev.kgpu.exporter.exposition.ExpositionRenderer;
import dev.kgpu.exporter.exposition.Snapshot;
import dev.kgpu.exporter.metrics.MetricFamily;
import dev.kgpu.exporter.nvml.NodeSampleReader;
import dev.kgpu.exporter.pods.DeviceAttribution;
import dev.kgpu.exporter.pods.MigInstanceLookup;
import dev.kgpu.exporter.pods.PodAttributionTracker;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One collection from start to published snapshot: read NVML, build the families, attribute them to
 * pods, render, publish. Runs on the supervisor thread only.
 */
final class CollectionCycle implements Supplier<Snapshot> {

    private final NodeSampleReader reader;
    private final MetricsCollection collection;
    private final Optional<PodAttributionTracker> pods;
    private final ExpositionRenderer renderer;

    CollectionCycle(NodeSampleReader reader, MetricsCollection collection, Optional<PodAttributionTracker> pods,
                    ExpositionRenderer renderer) {
        this.reader = reader;
        this.collection = collection;
        this.pods = pods;
        this.renderer = renderer;
    }

    @Override
    public Snapshot get() {
        NodeSample sample = reader.read();
        List<MetricFamily> families = collection.collect(sample);
        DeviceAttribution attribution = pods.map(tracker -> tracker.refresh(migLookup(sample)))
                .orElse(DeviceAttribution.none());
        return Snapshot.of(sample.takenAt(), attribution.apply(families), renderer);
    }

    static MigInstanceLookup migLookup(NodeSample sample) {
        return migUuid -> sample.gpuInstanceOfMig(migUuid).map(entity ->
                new MigInstanceLookup.GpuInstanceKey(entity.gpuIndex(), entity.gpuInstance().orElseThrow().id()));
    }
}
