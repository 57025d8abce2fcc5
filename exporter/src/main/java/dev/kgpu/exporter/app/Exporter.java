package dev.kgpu.exporter.app;

import dev.kgpu.config.v1.ConfigJson;
import dev.kgpu.exporter.collector.MetricsCollection;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.config.ExporterConfig;
import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.exposition.ExpositionRenderer;
import dev.kgpu.exporter.nvml.NodeSampleReader;
import dev.kgpu.exporter.podresources.PodResourcesClient;
import dev.kgpu.exporter.pods.PodAttributionTracker;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.Nvml;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The exporter's running parts. {@link #start} opens NVML with the settings read once by the entry point,
 * builds the collectors, dials the kubelet when Kubernetes mode is on, collects once, then lets the
 * supervisor collect at every interval; {@link #stop} stops the supervisor and closes the kubelet client
 * and NVML.
 */
@ApplicationScoped
public class Exporter {

    private static final System.Logger LOG = System.getLogger(Exporter.class.getName());

    @Inject
    SnapshotHolder snapshots;
    @Inject
    ExporterMetrics metrics;

    private Nvml nvml;
    private NodeSampleReader reader;
    private PodResourcesClient podResources;
    private volatile ExporterSupervisor supervisor;
    private volatile ExporterConfig settings;

    /** Starts collecting with {@code config}; the first collection is served when this returns. */
    public synchronized void start(ExporterConfig config) {
        settings = config;
        CounterSet counters = config.counters();
        LOG.log(Level.INFO, () -> String.format("Running with config:%n%s", ConfigJson.toJson(config.describe())));
        config.collectors().builtIn().ifPresent(builtIn -> LOG.log(Level.INFO, () -> String.format(
                "%s does not exist; using the built-in %s",
                config.collectors().path(), builtIn)));
        if (!counters.duplicates().isEmpty()) {
            LOG.log(Level.WARNING, () -> String.format("counters file %s names these counters again; only their first"
                    + " row is served: %s", counters.source(), counters.duplicates().stream()
                    .map(d -> d.counter().fieldName() + " (line " + d.counter().line() + ", first on line " + d.firstLine() + ")")
                    .collect(Collectors.joining(", "))));
        }
        if (!counters.notServed().isEmpty()) {
            LOG.log(Level.WARNING, () -> String.format("kgpu cannot read these counters from NVML and skips them: %s",
                    counters.notServed().stream()
                    .map(Counter::fieldName).collect(Collectors.joining(", "))));
        }

        InstantSource clock = Clock.systemUTC();
        nvml = Nvml.open(config.nvml());
        XidHistory xids = new XidHistory(max(config.xidCountWindow(), Duration.ofMinutes(1)));
        MetricsCollection collection = MetricsCollection.forCounters(counters, xids, config.xidCountWindow(),
                config.clockEventsCountWindow(), clock);
        reader = new NodeSampleReader(nvml, collection.readings(), metrics::nvmlError, clock);
        warnAboutProfiling(counters, reader.devices());

        Optional<PodAttributionTracker> pods = Optional.empty();
        if (config.kubernetes()) {
            // dcgm-exporter's 10 s: a slow kubelet delays the next snapshot, never a scrape
            podResources = new PodResourcesClient(config.podResourcesSocket(), Duration.ofSeconds(10));
            pods = Optional.of(new PodAttributionTracker(podResources, new HashSet<>(config.nvidiaResourceNames()),
                    config.gpuIdType(), config.virtualGpus(), clock, metrics::podResources));
        }
        ExpositionRenderer renderer = new ExpositionRenderer(config.hostname(), config.replaceBlanksInModelName(),
                config.useOldNamespace());
        CollectionCycle cycle = new CollectionCycle(reader, collection, pods, renderer);
        supervisor = new ExporterSupervisor(cycle, snapshots::publish, config.interval(), clock, xids,
                listener -> nvml.startHealthMonitor(reader.devices(), listener), metrics::collection);
        supervisor.start();
        LOG.log(Level.INFO, () -> String.format("serving %d series of %d GPUs on /metrics, collecting every %d ms",
                snapshots.current().seriesCount(), reader.devices().size(), config.interval().toMillis()));
    }

    /** Stops collecting and closes what {@link #start} opened; does nothing the second time. */
    public synchronized void stop() {
        if (supervisor != null) {
            supervisor.close();
            supervisor = null;
        }
        if (podResources != null) {
            podResources.close();
            podResources = null;
        }
        if (reader != null) {
            reader.close();
            reader = null;
        }
        if (nvml != null) {
            nvml.close();
            nvml = null;
        }
    }

    /** Whether collections still run and the last one is younger than three intervals. */
    public boolean healthy() {
        ExporterSupervisor running = supervisor;
        return running != null && running.running() && running.lastSuccess() != null
                && Duration.between(running.lastSuccess(), Instant.now())
                .compareTo(settings.interval().multipliedBy(3)) < 0;
    }

    /** Whether the supervisor thread is alive. */
    public boolean alive() {
        ExporterSupervisor running = supervisor;
        return running != null && running.running();
    }

    private static void warnAboutProfiling(CounterSet counters, List<GpuDevice> devices) {
        List<Counter> profiling = counters.profiling();
        if (profiling.isEmpty()) {
            return;
        }
        List<String> without = devices.stream().filter(d -> !gpm(d))
                .map(d -> d.index() + " (" + d.name() + ")").toList();
        if (!without.isEmpty()) {
            LOG.log(Level.WARNING, () -> String.format("profiling counters %s come from NVML's GPM, which GPUs %s lack"
                            + " (GPM needs Hopper or later); they have no such series",
                    profiling.stream().map(Counter::fieldName).collect(Collectors.joining(", ")), String.join(", ", without)));
        }
    }

    private static boolean gpm(GpuDevice device) {
        try {
            return device.gpmSupported();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
