package dev.kgpu.validator;

import dev.kgpu.agent.Supervisor;
import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.adapters.KubernetesCluster;
import dev.kgpu.validator.adapters.NvmlGpuDriver;
import dev.kgpu.validator.config.ValidatorSettings;
import dev.kgpu.validator.core.Cluster;
import dev.kgpu.validator.core.NodeStatusMetrics;
import dev.kgpu.validator.core.Sleeper;
import dev.kgpu.validator.core.StatusFiles;
import dev.kgpu.validator.core.ValidationPass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.time.Clock;
import java.time.Duration;

/**
 * Production wiring: nvml-ffm for the driver, the Quarkus-managed fabric8 client for the API (only looked
 * up when a component needs it), the real clock and {@link Thread#sleep}.
 */
@ApplicationScoped
public class ValidatorWiring {

    @Inject
    Instance<KubernetesClient> kubernetesClient;

    private static final System.Logger LOG = System.getLogger(ValidatorWiring.class.getName());
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private volatile Supervisor<Duration, DaemonHandler.Revalidate> daemon;

    public ValidationPass pass(ValidatorSettings settings) {
        return ValidationPlan.build(settings, new NvmlGpuDriver(settings.nvml()), this::cluster, statusFiles(settings),
                Clock.systemUTC(), Sleeper.system());
    }

    /** {@code COMPONENT=metrics}: the node-status exporter's readings. */
    public NodeStatusMetrics nodeStatusMetrics(ValidatorSettings settings) {
        return ValidationPlan.nodeStatusMetrics(settings, new NvmlGpuDriver(settings.nvml()), this::cluster,
                statusFiles(settings), Clock.systemUTC());
    }

    public DirectoryStatusFiles statusFiles(ValidatorSettings settings) {
        return new DirectoryStatusFiles(settings.outputDir());
    }

    /**
     * Daemon mode: validates until stopped, at shutdown. Quarkus' shutdown hook (SIGTERM) waits for the
     * {@code *-ready} files to be removed, where the JVM halting after it could cut a later removal short. Returns
     * the exit status: 0, or 1 after an unexpected error.
     */
    public int daemon(ValidationPass pass, StatusFiles statusFiles, ValidationState state, Duration interval) {
        Supervisor<Duration, DaemonHandler.Revalidate> supervisor = DaemonHandler.start(
                new DaemonHandler(pass, statusFiles, state), interval);
        daemon = supervisor;
        return supervisor.awaitExit();
    }

    void onShutdown(@Observes ShutdownEvent event) {
        Supervisor<Duration, DaemonHandler.Revalidate> running = daemon;
        if (running != null && !running.stop(STOP_TIMEOUT)) {
            LOG.log(System.Logger.Level.WARNING, "the validation supervisor did not stop within {0}", STOP_TIMEOUT);
        }
    }

    private Cluster cluster() {
        return new KubernetesCluster(kubernetesClient.get());
    }
}
