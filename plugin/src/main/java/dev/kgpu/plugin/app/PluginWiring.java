package dev.kgpu.plugin.app;

import dev.kgpu.agent.ExecutablePages;
import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.cdi.MigMinors;
import dev.kgpu.plugin.node.NodeRuntime;
import dev.kgpu.plugin.node.NodeStatus;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;
import dev.kgpu.plugin.settings.PluginSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.time.Duration;
import java.time.InstantSource;

/**
 * Builds the node runtime and its front-ends from the settings and adapters (NVML, the kubelet's gRPC, Micrometer, and
 * with the DRA driver the Kubernetes API), runs it on the agent kit's {@link Supervisor} (which relays SIGHUP), and
 * holds it for the health checks. The entry point ({@code PluginMain}) runs it and exits with its status.
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
    private volatile Supervisor<PluginSettings, Runnable> supervisor;

    /** Runs the plugin with the settings the entry point read until it ends; its exit status. */
    public int run(Launch.Launched<PluginSettings> launched) {
        return start(launched).awaitExit();
    }

    /** Starts the plugin with the settings the entry point read; SIGHUP reads them again the same way. */
    public Supervisor<PluginSettings, Runnable> start(Launch.Launched<PluginSettings> launched) {
        PluginSettings settings = launched.settings();
        settings.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, w.toString()));
        LOG.log(System.Logger.Level.INFO, "Running with config:\n{0}", settings.description());
        NodeRuntime<PluginSettings> runtime = new NodeRuntime<>(
                NvmlDeviceSource.factory(settings.node().nvml(),
                        MigCapabilities.read(settings.node().procRoot().resolve(MigMinors.FILE))),
                PluginAdapters.ledger(settings), PluginAdapters.frontEnds(settings, metrics, kubernetes::get, NodeRuntime.RETRIES), InstantSource.system(),
                metrics, NodeRuntime.RETRIES);
        node = runtime;
        Supervisor<PluginSettings, Runnable> started = Supervisor.builder(NodeRuntime.THREAD_NAME, runtime)
                .reloads(NodeRuntime.RUNNING, launched.reload())
                .start(settings);
        supervisor = started;
        // after the first serve, the node's first event: a native executable's pages only its start read go back; the
        // rest stay cached, so the first XID's path is mapped from memory, not read from disk
        started.post(() -> ExecutablePages.releaseStartupPages(settings.releaseStartupPages(),
                ExecutablePages.CachedRest.KEPT));
        return started;
    }

    /**
     * Quarkus stops the application (after SIGTERM stopped the node and {@code PluginMain} returned its status, or from
     * its shutdown hook); the JVM halts once the hook is done, so the hook waits for the stop.
     */
    void onShutdown(@Observes ShutdownEvent event) {
        stop();
    }

    /** Stops the plugin (its sockets removed); returns the exit status: 0, or 1 after it gave up. */
    public int stop() {
        Supervisor<PluginSettings, Runnable> running = supervisor;
        if (running == null) {
            return 0;
        }
        if (!running.stop(STOP_TIMEOUT)) {
            LOG.log(System.Logger.Level.WARNING, "the supervisor did not stop within {0}", STOP_TIMEOUT);
            return 1;
        }
        return running.awaitExit();
    }

    /** What the node and its front-ends have achieved so far; {@link NodeStatus#STARTING} before it started. */
    public NodeStatus status() {
        NodeRuntime<PluginSettings> running = node;
        return running == null ? NodeStatus.STARTING : running.status();
    }
}
