package dev.kgpu.discovery.run;

import dev.kgpu.agent.HangupSignal;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Reload;
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
 * Builds the supervisor from the loaded configuration, relays SIGHUP to it and stops it when Quarkus
 * shuts down (SIGTERM).
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

    private volatile DiscoverySupervisor supervisor;

    /**
     * Starts labelling with {@code config}, read once by the entry point; SIGHUP re-reads the config file
     * through {@code loader} (the same path as at start) and relabels.
     */
    public void start(FeatureDiscoveryConfig config, ConfigLoader<FeatureDiscoveryConfig> loader) {
        config.warnings().forEach(warning -> LOG.log(Level.WARNING, () -> String.valueOf(warning)));
        LOG.log(Level.INFO, () -> String.format("Running with config:%n%s", config.toJson()));
        LabelingPass pass = new LabelingPass(() -> Nvml.open(config.nvml()), LabelingPass.Sinks.of(sinkFactory), clock);
        supervisor = new DiscoverySupervisor(pass, status, () -> switch (loader.reload()) {
            case Reload.Loaded<FeatureDiscoveryConfig>(FeatureDiscoveryConfig reloaded) -> {
                reloaded.warnings().forEach(warning -> LOG.log(Level.WARNING, () -> String.valueOf(warning)));
                LOG.log(Level.INFO, () -> String.format("Running with config:%n%s", reloaded.toJson()));
                yield ConfigMapping.settings(reloaded);
            }
            case Reload.Rejected<FeatureDiscoveryConfig> rejected -> throw new IllegalArgumentException(rejected.message());
        }, clock);
        HangupSignal.relayTo(supervisor::relabel);
        supervisor.start(ConfigMapping.settings(config));
    }

    /** Blocks until the supervisor stops; its exit code. */
    public int awaitExit() {
        return supervisor.awaitExit();
    }

    void onShutdown(@Observes ShutdownEvent event) throws InterruptedException {
        DiscoverySupervisor running = supervisor;
        if (running != null) {
            running.stop();
            if (running.awaitExit(STOP_TIMEOUT) < 0) {
                LOG.log(Level.WARNING, () -> String.format("the discovery supervisor did not stop within %s",
                        STOP_TIMEOUT));
            }
        }
    }
}
