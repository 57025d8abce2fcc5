package dev.kgpu.validator;

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
import io.quarkus.runtime.Quarkus;
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

    private volatile DaemonSupervisor daemon;

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
     * Daemon mode's supervisor, closed at shutdown: Quarkus' shutdown hook (SIGTERM) waits for its
     * {@code *-ready} files to be removed, where the entry point's own close after {@code waitForExit} could be
     * cut short by the JVM halting. An unexpected error in it ends the process with status 1.
     */
    public DaemonSupervisor daemon(ValidationPass pass, StatusFiles statusFiles, ValidationState state,
                                   Duration interval) {
        DaemonSupervisor supervisor = new DaemonSupervisor(pass, statusFiles, state, interval, () -> Quarkus.asyncExit(1));
        daemon = supervisor;
        return supervisor;
    }

    void onShutdown(@Observes ShutdownEvent event) throws InterruptedException {
        DaemonSupervisor running = daemon;
        if (running != null) {
            running.close();
        }
    }

    private Cluster cluster() {
        return new KubernetesCluster(kubernetesClient.get());
    }
}
