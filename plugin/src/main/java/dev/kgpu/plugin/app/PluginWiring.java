package dev.kgpu.plugin.app;

import dev.kgpu.agent.HangupSignal;
import dev.kgpu.cdi.MigMinors;
import dev.kgpu.plugin.node.NodeRuntime;
import dev.kgpu.plugin.node.NodeStatus;
import dev.kgpu.plugin.node.NodeSupervisor;
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
import java.util.function.Supplier;

/**
 * Builds the node runtime and its front-ends from the settings and adapters (NVML, the kubelet's gRPC, Micrometer, and
 * with the DRA driver the Kubernetes API), relays SIGHUP to it, and holds it for the health checks. The entry point
 * ({@code PluginMain}) decides when to start and stop; this bean never exits the process itself, it asks Quarkus to.
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

    private volatile NodeRuntime<PluginSettings> node;
    private volatile NodeSupervisor<PluginSettings> supervisor;
    private volatile int exitStatus;

    /** Starts the plugin with {@code settings}; {@code reload} loads them again on SIGHUP. */
    public void start(PluginSettings settings, Supplier<PluginSettings> reload) {
        settings.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, w.toString()));
        LOG.log(System.Logger.Level.INFO, "Running with config:\n{0}", settings.description());
        NodeRuntime<PluginSettings> runtime = new NodeRuntime<>(
                NvmlDeviceSource.factory(settings.node().nvml(),
                        MigCapabilities.read(settings.node().procRoot().resolve(MigMinors.FILE))),
                PluginAdapters.frontEnds(settings, metrics, kubernetes::get, NodeRuntime.RETRIES), InstantSource.system(),
                metrics, NodeRuntime.RETRIES);
        NodeSupervisor<PluginSettings> started = new NodeSupervisor<>(runtime, settings, reload, this::giveUp);
        node = runtime;
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
        NodeSupervisor<PluginSettings> running = supervisor;
        if (running != null && !running.stop(STOP_TIMEOUT)) {
            LOG.log(System.Logger.Level.WARNING, "the supervisor did not stop within {0}", STOP_TIMEOUT);
        }
        return exitStatus;
    }

    /** What the node and its front-ends have achieved so far; {@link NodeStatus#STARTING} before it started. */
    public NodeStatus status() {
        NodeRuntime<PluginSettings> running = node;
        return running == null ? NodeStatus.STARTING : running.status();
    }

    private void giveUp(int status, String reason) {
        LOG.log(System.Logger.Level.ERROR, "exiting: {0}", reason);
        exitStatus = status;
        Quarkus.asyncExit(status);
    }
}
