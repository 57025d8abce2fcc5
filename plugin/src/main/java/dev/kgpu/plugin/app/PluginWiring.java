package dev.kgpu.plugin.app;

import dev.kgpu.agent.HangupSignal;
import dev.kgpu.cdi.MigMinors;
import dev.kgpu.plugin.deviceplugin.CdiSpecPublisher;
import dev.kgpu.plugin.dra.DraDriver;
import dev.kgpu.plugin.dra.DraStatus;
import dev.kgpu.plugin.lifecycle.LifecycleListener;
import dev.kgpu.plugin.lifecycle.PluginStatus;
import dev.kgpu.plugin.lifecycle.PluginSupervisor;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;
import dev.kgpu.plugin.settings.PluginSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Builds the plugin from its settings and adapters (NVML, the kubelet's gRPC, Micrometer, and with the DRA driver the
 * Kubernetes API), relays SIGHUP to
 * it, and holds it for the health checks. The entry point ({@code PluginMain}) decides when to start and
 * stop; this bean never exits the process itself, it asks Quarkus to.
 */
@ApplicationScoped
public class PluginWiring {

    private static final System.Logger LOG = System.getLogger(PluginWiring.class.getName());
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    @Inject
    MicrometerPluginMetrics metrics;

    /** Built only when the DRA driver runs (it reads claims and writes ResourceSlices). */
    @Inject
    Instance<KubernetesClient> kubernetes;

    private volatile PluginSupervisor supervisor;
    private volatile DraDriver draDriver;
    private volatile int exitStatus;

    /** Starts the plugin with {@code settings}; {@code reload} loads them again on SIGHUP. */
    public void start(PluginSettings settings, Supplier<PluginSettings> reload) {
        settings.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, w.toString()));
        LOG.log(System.Logger.Level.INFO, "Running with config:\n{0}", settings.description());
        List<LifecycleListener> listeners = new ArrayList<>();
        listeners.add(new CdiSpecPublisher());
        settings.dra().ifPresent(dra -> {
            DraDriver driver = PluginAdapters.draDriver(dra, kubernetes.get(), metrics, PluginSupervisor.RETRIES);
            draDriver = driver;
            listeners.add(driver);
        });
        PluginSupervisor started = new PluginSupervisor(settings, reload,
                NvmlDeviceSource.factory(settings.nvml(), MigCapabilities.read(settings.procRoot().resolve(MigMinors.FILE))),
                PluginAdapters.kubelet(settings, metrics), InstantSource.system(), metrics, PluginSupervisor.RETRIES, listeners,
                this::giveUp);
        supervisor = started;
        started.start();
        HangupSignal.relayTo(() -> {
            LOG.log(System.Logger.Level.INFO, "SIGHUP: reloading the configuration");
            started.reload();
        });
    }

    /**
     * Quarkus stops the application from its shutdown hook (SIGTERM), while {@code PluginMain} is on its way
     * to {@link #stop()}; the JVM halts once the hook is done, so the hook waits for the same stop.
     */
    void onShutdown(@Observes ShutdownEvent event) {
        stop();
    }

    /** Stops the plugin (its sockets removed); returns the exit status: 0, or 1 after it gave up. */
    public int stop() {
        PluginSupervisor running = supervisor;
        if (running != null && !running.stop(STOP_TIMEOUT)) {
            LOG.log(System.Logger.Level.WARNING, "the supervisor did not stop within {0}", STOP_TIMEOUT);
        }
        return exitStatus;
    }

    /** What the plugin has achieved so far; {@link PluginStatus#STARTING} before it started. */
    public PluginStatus status() {
        PluginSupervisor running = supervisor;
        return running == null ? PluginStatus.STARTING : running.status();
    }

    /** What the DRA driver has achieved so far; empty when it does not run. */
    public Optional<DraStatus> draStatus() {
        DraDriver driver = draDriver;
        return driver == null ? Optional.empty() : Optional.of(driver.status());
    }

    private void giveUp(String reason) {
        LOG.log(System.Logger.Level.ERROR, "exiting: {0}", reason);
        exitStatus = 1;
        Quarkus.asyncExit(1);
    }
}
