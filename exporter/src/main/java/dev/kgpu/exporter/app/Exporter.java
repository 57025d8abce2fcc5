package dev.kgpu.exporter.app;

import dev.kgpu.exporter.collector.MetricsCollection;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.config.ExporterConfig;
import dev.kgpu.exporter.config.ExporterConfigLoader;
import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.counters.CountersFile;
import dev.kgpu.exporter.exposition.ExpositionRenderer;
import dev.kgpu.exporter.nvml.NvmlNodeReader;
import dev.kgpu.exporter.podresources.PodResourcesClient;
import dev.kgpu.exporter.pods.PodAttributionTracker;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlOptions;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.annotations.CommandLineArguments;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The exporter's lifecycle. At start: read the settings and the counters file, open NVML, build the
 * collectors, dial the kubelet when Kubernetes mode is on, collect once, then let the supervisor collect
 * at every interval. At shutdown: stop the supervisor, close the kubelet client and NVML.
 *
 * <p>Settings are read through MicroProfile Config, whose environment source answers dcgm-exporter's
 * variable names ({@code DCGM_EXPORTER_INTERVAL}, ...) exactly; command-line flags win over them.
 */
@ApplicationScoped
public class Exporter {

    private static final Logger LOG = Logger.getLogger(Exporter.class);

    @Inject
    Config config;
    @Inject
    @CommandLineArguments
    String[] args;
    @Inject
    SnapshotHolder snapshots;
    @Inject
    ExporterMetrics metrics;

    private Nvml nvml;
    private NvmlNodeReader reader;
    private PodResourcesClient podResources;
    private ExporterSupervisor supervisor;
    private ExporterConfig settings;

    void start(@Observes StartupEvent event) {
        Function<String, String> environment = name -> config.getOptionalValue(name, String.class).orElse(null);
        settings = new ExporterConfigLoader(environment, () -> HostNameHolder.NAME, Files::exists).load(args);
        CounterSet counters = loadCounters(settings);
        LOG.infof("Running with config: %s; counters from %s", settings, counters.source());
        if (!counters.notServed().isEmpty()) {
            LOG.warnf("kgpu cannot read these counters from NVML and skips them: %s", counters.notServed().stream()
                    .map(Counter::fieldName).collect(Collectors.joining(", ")));
        }

        InstantSource clock = Clock.systemUTC();
        nvml = Nvml.open(NvmlOptions.fromEnvironment(environment));
        XidHistory xids = new XidHistory(max(settings.xidCountWindow(), Duration.ofMinutes(1)));
        MetricsCollection collection = MetricsCollection.forCounters(counters, xids, settings.xidCountWindow(),
                settings.clockEventsCountWindow(), clock);
        reader = new NvmlNodeReader(nvml, collection.readings(), metrics::nvmlError, clock);
        warnAboutProfiling(counters, reader.devices());

        Optional<PodAttributionTracker> pods = Optional.empty();
        if (settings.kubernetes()) {
            // dcgm-exporter's 10 s: a slow kubelet delays the next snapshot, never a scrape
            podResources = new PodResourcesClient(settings.podResourcesSocket(), Duration.ofSeconds(10));
            pods = Optional.of(new PodAttributionTracker(podResources, new HashSet<>(settings.nvidiaResourceNames()),
                    settings.gpuIdType(), settings.virtualGpus(), clock, metrics::podResources));
        }
        ExpositionRenderer renderer = new ExpositionRenderer(settings.hostname(), settings.replaceBlanksInModelName());
        CollectionCycle cycle = new CollectionCycle(reader, collection, pods, renderer);
        supervisor = new ExporterSupervisor(cycle, snapshots::publish, settings.interval(), clock, xids,
                listener -> nvml.startHealthMonitor(reader.devices(), listener), metrics::collection);
        supervisor.start();
        LOG.infof("serving %d series of %d GPUs on /metrics, collecting every %d ms",
                snapshots.current().seriesCount(), reader.devices().size(), settings.interval().toMillis());
    }

    void stop(@Observes ShutdownEvent event) {
        if (supervisor != null) {
            supervisor.close();
        }
        if (podResources != null) {
            podResources.close();
        }
        if (reader != null) {
            reader.close();
        }
        if (nvml != null) {
            nvml.close();
        }
    }

    /** Whether collections still run and the last one is younger than three intervals. */
    public boolean healthy() {
        return supervisor != null && supervisor.running() && supervisor.lastSuccess() != null
                && Duration.between(supervisor.lastSuccess(), java.time.Instant.now())
                .compareTo(settings.interval().multipliedBy(3)) < 0;
    }

    /** Whether the supervisor thread is alive. */
    public boolean alive() {
        return supervisor != null && supervisor.running();
    }

    static CounterSet loadCounters(ExporterConfig settings) {
        ExporterConfig.CollectorsFile file = settings.collectors();
        if (file.builtIn().isPresent()) {
            LOG.infof("%s does not exist; using the built-in %s", file.path(), file.builtIn().get());
            return CountersFile.readBuiltIn(file.builtIn().get());
        }
        return CountersFile.read(file.path());
    }

    private static void warnAboutProfiling(CounterSet counters, List<GpuDevice> devices) {
        List<Counter> profiling = counters.profiling();
        if (profiling.isEmpty()) {
            return;
        }
        List<String> without = devices.stream().filter(d -> !gpm(d))
                .map(d -> d.index() + " (" + d.name() + ")").toList();
        if (!without.isEmpty()) {
            LOG.warnf("profiling counters %s come from NVML's GPM, which GPUs %s lack (GPM needs Hopper or later);"
                            + " they have no such series",
                    profiling.stream().map(Counter::fieldName).collect(Collectors.joining(", ")),
                    String.join(", ", without));
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

    /** The host name, read once. */
    private static final class HostNameHolder {
        static final String NAME = ExporterConfigLoader.hostName();
    }
}
