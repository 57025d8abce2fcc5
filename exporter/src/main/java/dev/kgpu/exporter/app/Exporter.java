package dev.kgpu.exporter.app;

import dev.kgpu.agent.ExecutablePages;
import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.config.v1.ConfigJson;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.config.ExporterConfig;
import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.exposition.ExpositionRenderer;
import dev.kgpu.exporter.podresources.PodResourcesClient;
import dev.kgpu.exporter.pods.PodAttributionTracker;
import dev.kgpu.nvml.Nvml;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The exporter's running parts. {@link #start} takes the settings read once by the entry point, dials the
 * kubelet when Kubernetes mode is on and starts the supervisor ({@link CollectionHandler}), which opens NVML
 * (retrying while it is not there), collects at every interval and re-reads the counters file on SIGHUP;
 * {@link #stop} (at Quarkus' shutdown) stops the supervisor (which closes NVML) and closes the kubelet client.
 */
@ApplicationScoped
public class Exporter {

    private static final System.Logger LOG = System.getLogger(Exporter.class.getName());
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

    @Inject
    SnapshotHolder snapshots;
    @Inject
    ExporterMetrics metrics;

    private PodResourcesClient podResources;
    private volatile Supervisor<CounterSet, CollectionHandler.Event> supervisor;
    private volatile CollectionHandler collection;
    private volatile ExporterConfig settings;

    /** Collects with the settings the entry point read until the exporter stops; the exit status. */
    public int run(Launch.Launched<ExporterConfig> launched) {
        start(launched.settings());
        Supervisor<CounterSet, CollectionHandler.Event> running = supervisor;
        return running == null ? 0 : running.awaitExit(); // null: shut down already
    }

    /**
     * Starts collecting with {@code config}. When NVML opens, the first collection is served when this
     * returns; when it does not, the exporter stays up, not ready, and the supervisor retries.
     */
    public synchronized void start(ExporterConfig config) {
        settings = config;
        CounterSet counters = config.counters();
        LOG.log(Level.INFO, "Running with config:\n{0}", ConfigJson.toJson(config.describe()));
        config.collectors().builtIn().ifPresent(builtIn -> LOG.log(Level.INFO, "{0} does not exist; using the built-in"
                + " {1}", config.collectors().path(), builtIn));
        warnAbout(counters);

        InstantSource clock = Clock.systemUTC();
        XidHistory xids = new XidHistory(max(config.xidCountWindow(), Duration.ofMinutes(1)));
        Optional<PodAttributionTracker> pods = Optional.empty();
        if (config.kubernetes()) {
            // dcgm-exporter's 10 s: a slow kubelet delays the next snapshot, never a scrape
            podResources = new PodResourcesClient(config.podResourcesSocket(), Duration.ofSeconds(10));
            pods = Optional.of(new PodAttributionTracker(podResources, new HashSet<>(config.nvidiaResourceNames()),
                    config.gpuIdType(), config.virtualGpus(), clock, metrics::podResources));
        }
        ExpositionRenderer renderer = new ExpositionRenderer(config.hostname(), config.replaceBlanksInModelName(),
                config.useOldNamespace());
        NvmlNode.Parts parts = new NvmlNode.Parts(xids, config.xidCountWindow(), config.clockEventsCountWindow(), pods,
                renderer, metrics::nvmlError, clock);
        CollectionHandler handler = new CollectionHandler(set -> NvmlNode.open(() -> Nvml.open(config.nvml()), parts, set),
                snapshots::publish, config.interval(), xids, metrics::collection, metrics::nvmlOpenFailed);
        collection = handler;
        Supervisor<CounterSet, CollectionHandler.Event> started = CollectionHandler.start(handler, counters, () -> {
            CounterSet reloaded = ExporterConfig.readCounters(config.collectors());
            warnAbout(reloaded);
            return reloaded;
        }, clock);
        supervisor = started;
        // the first collection is done (start returns after it): a native executable's pages only its start read go back
        ExecutablePages.releaseStartupPages(config.releaseStartupPages(), ExecutablePages.CachedRest.DROPPED);
        if (handler.lastSuccess() != null) {
            LOG.log(Level.INFO, "serving {0,number,#} series on /metrics, collecting every {1,number,#} ms",
                    snapshots.current().seriesCount(), config.interval().toMillis());
        }
    }

    /** SIGTERM: Quarkus shuts down while the entry point waits in {@link #run}, which then returns. */
    void onShutdown(@Observes ShutdownEvent event) {
        stop();
    }

    /** Stops collecting and closes what {@link #start} opened; does nothing the second time. */
    public synchronized void stop() {
        if (supervisor != null) {
            if (!supervisor.stop(STOP_TIMEOUT)) {
                LOG.log(Level.WARNING, "the exporter''s supervisor did not stop within {0}", STOP_TIMEOUT);
            }
            supervisor = null;
        }
        if (podResources != null) {
            podResources.close();
            podResources = null;
        }
    }

    /** Readiness: collections still run and the last one succeeded less than three intervals ago. */
    public boolean healthy() {
        Supervisor<CounterSet, CollectionHandler.Event> running = supervisor;
        CollectionHandler handler = collection;
        return running != null && running.running() && handler.lastSuccess() != null
                && Duration.between(handler.lastSuccess(), Instant.now())
                .compareTo(settings.interval().multipliedBy(3)) < 0;
    }

    /**
     * Liveness: the supervisor thread runs and its step in progress (a collection, an NVML open) has not
     * been running longer than {@link #stuckAfter}; a hung NVML call makes the kubelet restart the pod.
     * Without NVML the exporter is alive (it retries) but not ready.
     */
    public boolean alive() {
        Supervisor<CounterSet, CollectionHandler.Event> running = supervisor;
        CollectionHandler handler = collection;
        return running != null && running.running()
                && handler.stuckFor(Instant.now()).compareTo(stuckAfter(settings.interval())) <= 0;
    }

    /** Five intervals, and at least 30 s, so a slow collection on a loaded node is not taken for a hung one. */
    static Duration stuckAfter(Duration interval) {
        return max(interval.multipliedBy(5), Duration.ofSeconds(30));
    }

    private static void warnAbout(CounterSet counters) {
        if (!counters.duplicates().isEmpty()) {
            LOG.log(Level.WARNING, "counters file {0} names these counters again; only their first row is served: {1}",
                    counters.source(), counters.duplicates().stream()
                            .map(d -> d.counter().fieldName() + " (line " + d.counter().line() + ", first on line "
                                    + d.firstLine() + ")")
                            .collect(Collectors.joining(", ")));
        }
        if (!counters.notServed().isEmpty()) {
            LOG.log(Level.WARNING, "kgpu cannot read these counters from NVML and skips them: {0}",
                    counters.notServed().stream().map(Counter::fieldName).collect(Collectors.joining(", ")));
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
