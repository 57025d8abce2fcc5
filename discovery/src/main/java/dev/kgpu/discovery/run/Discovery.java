package dev.kgpu.discovery.run;

import dev.kgpu.agent.ExecutablePages;
import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.discovery.publish.SinkFactory;
import dev.kgpu.discovery.settings.FeatureDiscoveryConfig;
import dev.kgpu.nvml.Nvml;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;

/**
 * Starts discovery's supervisor ({@link DiscoveryHandler}) with the configuration the entry point read, waits for
 * it to end, and stops it when Quarkus shuts down (SIGTERM).
 */
@Singleton
public class Discovery {

    private static final System.Logger LOG = System.getLogger(Discovery.class.getName());
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    @Inject
    SinkFactory sinkFactory;

    @Inject
    PassStatus status;

    @Inject
    InstantSource clock;

    private volatile Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor;

    /**
     * Labels with the configuration read once by the entry point until discovery ends; SIGHUP re-reads it
     * the same way ({@link Launch.Launched#reload}) and relabels. Returns the exit status.
     */
    public int run(Launch.Launched<FeatureDiscoveryConfig> launched) {
        FeatureDiscoveryConfig config = launched.settings();
        logRunning(config);
        LabelingPass pass = new LabelingPass(() -> Nvml.open(config.nvml()), LabelingPass.Sinks.of(sinkFactory), clock);
        DiscoverySettings settings = ConfigMapping.settings(config);
        // the start is done and the first pass comes next: a native executable unmaps what its start mapped, still
        // cached, so the pass maps back only what it reads itself
        ExecutablePages.unmapStartupPages(config.releaseStartupPages());
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> started = DiscoveryHandler.start(pass, status, () -> {
            FeatureDiscoveryConfig reloaded = launched.reload().get();
            logRunning(reloaded);
            return ConfigMapping.settings(reloaded);
        }, clock, settings,
                // a daemon's first labels are out: a native executable's pages only its start read go back; not
                // before, or the first pass would read its own pages back from disk, one at a time
                () -> ExecutablePages.releaseStartupPages(config.releaseStartupPages(), ExecutablePages.CachedRest.DROPPED));
        supervisor = started;
        return started.awaitExit();
    }

    private static void logRunning(FeatureDiscoveryConfig config) {
        for (ConfigWarning warning : config.warnings()) {
            LOG.log(Level.WARNING, warning.toString());
        }
        LOG.log(Level.INFO, "Running with config:\n{0}", config.toJson());
    }

    void onShutdown(@Observes ShutdownEvent event) {
        Supervisor<DiscoverySettings, DiscoveryHandler.Due> running = supervisor;
        if (running != null && !running.stop(STOP_TIMEOUT)) {
            LOG.log(Level.WARNING, "the discovery supervisor did not stop within {0}", STOP_TIMEOUT);
        }
    }
}
