package dev.kgpu.exporter.app;

import dev.kgpu.exporter.pods.PodAttributionTracker;
import dev.kgpu.nvml.NvmlException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exporter's own metrics, served by Micrometer on {@code /q/metrics} (never mixed into {@code /metrics},
 * whose content stays dcgm-exporter's): scrape and collection durations, NVML errors by function, kubelet
 * pod-resources calls by outcome, and the size and age of the served snapshot.
 */
@ApplicationScoped
public class ExporterMetrics {

    private final MeterRegistry registry;
    private final Timer scrapes;
    private final Timer collections;
    private final Map<PodAttributionTracker.Outcome, Counter> podResourcesCalls =
            new EnumMap<>(PodAttributionTracker.Outcome.class);
    private final Map<String, Counter> nvmlErrors = new ConcurrentHashMap<>();
    private final Counter nvmlOpenFailures;

    public ExporterMetrics(MeterRegistry registry, SnapshotHolder snapshots) {
        this.registry = registry;
        this.scrapes = Timer.builder("kgpu.exporter.scrape.duration")
                .description("Time to answer one /metrics request from the current snapshot").register(registry);
        this.collections = Timer.builder("kgpu.exporter.collection.duration")
                .description("Time of one collection: NVML reads, pod resources, rendering").register(registry);
        for (PodAttributionTracker.Outcome outcome : PodAttributionTracker.Outcome.values()) {
            podResourcesCalls.put(outcome, Counter.builder("kgpu.exporter.pod.resources.calls")
                    .description("Refreshes of the pod attribution from the kubelet's PodResources List, by outcome")
                    .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT)).register(registry));
        }
        nvmlOpenFailures = Counter.builder("kgpu.exporter.nvml.open.failures")
                .description("Tries to open NVML that failed (the exporter retries with backoff, not ready)")
                .register(registry);
        Gauge.builder("kgpu.exporter.snapshot.series", snapshots, s -> s.current().seriesCount())
                .description("Series in the snapshot /metrics serves").register(registry);
        Gauge.builder("kgpu.exporter.snapshot.age", snapshots, s -> s.current().isEmpty() ? Double.NaN
                        : Duration.between(s.current().collectedAt(), Instant.now()).toMillis() / 1000.0)
                .description("Age of the snapshot /metrics serves").baseUnit("seconds").register(registry);
    }

    public void scrape(long nanos) {
        scrapes.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    public void collection(long nanos) {
        collections.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    public void podResources(PodAttributionTracker.Outcome outcome) {
        podResourcesCalls.get(outcome).increment();
    }

    public void nvmlOpenFailed() {
        nvmlOpenFailures.increment();
    }

    public void nvmlError(NvmlException e) {
        nvmlErrors.computeIfAbsent(e.function(), function -> Counter.builder("kgpu.exporter.nvml.errors")
                .description("NVML calls that failed during collection, by function")
                .tag("function", function).register(registry)).increment();
    }
}
