package dev.kgpu.validator;

import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.adapters.KubernetesCluster;
import dev.kgpu.validator.adapters.NvmlGpuDriver;
import dev.kgpu.validator.config.ValidatorSettings;
import dev.kgpu.validator.core.Cluster;
import dev.kgpu.validator.core.NodeStatusMetrics;
import dev.kgpu.validator.core.Sleeper;
import dev.kgpu.validator.core.ValidationPass;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.time.Clock;

/**
 * Production wiring: nvml-ffm for the driver, the Quarkus-managed fabric8 client for the API (only looked
 * up when a component needs it), the real clock and {@link Thread#sleep}.
 */
@ApplicationScoped
public class ValidatorWiring {

    @Inject
    Instance<KubernetesClient> kubernetesClient;

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

    private Cluster cluster() {
        return new KubernetesCluster(kubernetesClient.get());
    }
}
