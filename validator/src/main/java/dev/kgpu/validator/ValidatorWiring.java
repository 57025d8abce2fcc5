package dev.kgpu.validator;

import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.adapters.KubernetesCluster;
import dev.kgpu.validator.adapters.NvmlGpuDriver;
import dev.kgpu.validator.config.ValidatorSettings;
import dev.kgpu.validator.core.Cluster;
import dev.kgpu.validator.core.Sleeper;
import dev.kgpu.validator.core.ValidationPass;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Function;

/**
 * Production wiring: nvml-ffm for the driver, the Quarkus-managed fabric8 client for the API (only looked
 * up when a component needs it), the real clock and {@link Thread#sleep}.
 */
@ApplicationScoped
public class ValidatorWiring {

    @Inject
    Instance<KubernetesClient> kubernetesClient;

    public ValidationPass pass(ValidatorSettings settings, Function<String, String> environment) {
        // NVML lives under the driver root as this container sees it (DRIVER_ROOT_CTR_PATH);
        // KGPU_NVML_LIBRARY, when set, wins.
        String library = environment.apply("KGPU_NVML_LIBRARY");
        NvmlOptions nvml = new NvmlOptions(
                library == null || library.isBlank() ? Optional.empty() : Optional.of(Path.of(library)),
                Path.of(settings.roots().driverRootCtrPath()));
        return ValidationPlan.build(settings, new NvmlGpuDriver(nvml), this::cluster, statusFiles(settings),
                Clock.systemUTC(), Sleeper.system());
    }

    public DirectoryStatusFiles statusFiles(ValidatorSettings settings) {
        return new DirectoryStatusFiles(settings.outputDir());
    }

    private Cluster cluster() {
        return new KubernetesCluster(kubernetesClient.get());
    }
}
