package dev.kgpu.validator.config;

import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.DriverRoots;
import dev.kgpu.validator.core.MigStrategy;
import dev.kgpu.validator.core.SamplePod;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the validator was told, validated. Built by {@link SettingsReader} from flags and environment
 * (NVIDIA's names and defaults); every component is present and checked.
 *
 * @param components           what to validate, in order ({@code COMPONENT}; all four when unset)
 * @param nodeName             {@code NODE_NAME}; required for {@code plugin} and {@code cuda}
 * @param namespace            {@code OPERATOR_NAMESPACE} (or {@code NAMESPACE}) where sample pods run
 * @param outputDir            {@code OUTPUT_DIR}, where the {@code *-ready} files go
 * @param withWait             {@code WITH_WAIT}: retry {@code driver} and {@code toolkit} until they pass
 * @param withWorkload         {@code WITH_WORKLOAD}: {@code plugin} also runs a sample pod
 * @param cleanupAll           {@code CLEANUP_ALL}: remove every {@code *-ready} file before validating
 * @param sleepInterval        {@code SLEEP_INTERVAL_SECONDS} between polls and retries
 * @param pluginWaitTries      polls of the node's GPU resources before giving up (NVIDIA: 30)
 * @param podWaitTries         polls of a sample pod before giving up (NVIDIA: 60)
 * @param revalidateInterval   daemon mode: time between passes
 * @param cdiSpecDir           when present, {@code toolkit} requires a CDI spec naming every GPU there
 * @param simulatedDeviceNodes accept regular files as device nodes (simulated nodes only)
 * @param validatorImage       {@code VALIDATOR_IMAGE}, the validator's own image, recorded only
 */
public record ValidatorSettings(List<Component> components, Mode mode, String nodeName, String namespace,
                                Path outputDir, boolean withWait, boolean withWorkload, boolean cleanupAll,
                                Duration sleepInterval, int pluginWaitTries, int podWaitTries,
                                Duration revalidateInterval, MigStrategy migStrategy, DriverRoots roots,
                                Optional<Path> cdiSpecDir, boolean simulatedDeviceNodes, SamplePod samplePod,
                                Optional<String> validatorImage) {

    public ValidatorSettings {
        components = List.copyOf(components);
        if (components.isEmpty()) {
            throw new IllegalArgumentException("components was '[]' but it must name at least one component");
        }
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(outputDir, "outputDir");
        Objects.requireNonNull(sleepInterval, "sleepInterval");
        Objects.requireNonNull(revalidateInterval, "revalidateInterval");
        Objects.requireNonNull(migStrategy, "migStrategy");
        Objects.requireNonNull(roots, "roots");
        Objects.requireNonNull(cdiSpecDir, "cdiSpecDir");
        Objects.requireNonNull(samplePod, "samplePod");
        Objects.requireNonNull(validatorImage, "validatorImage");
        boolean needsCluster = components.contains(Component.PLUGIN) || components.contains(Component.CUDA);
        if (needsCluster && (nodeName.isBlank() || namespace.isBlank())) {
            throw new IllegalArgumentException("nodeName was '" + nodeName + "' and namespace was '" + namespace
                    + "' but plugin and cuda need both");
        }
    }

    /** The effective settings under NVIDIA's (and kgpu's) names, for the start-up log line. */
    public java.util.Map<String, Object> describe() {
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("COMPONENT", components.stream().map(Component::id).toList());
        out.put("KGPU_VALIDATOR_MODE", mode.name().toLowerCase(java.util.Locale.ROOT));
        out.put("NODE_NAME", nodeName);
        out.put("OPERATOR_NAMESPACE", namespace);
        out.put("OUTPUT_DIR", outputDir.toString());
        out.put("WITH_WAIT", withWait);
        out.put("WITH_WORKLOAD", withWorkload);
        out.put("CLEANUP_ALL", cleanupAll);
        out.put("SLEEP_INTERVAL_SECONDS", sleepInterval.toSeconds());
        out.put("KGPU_PLUGIN_WAIT_TRIES", pluginWaitTries);
        out.put("KGPU_POD_WAIT_TRIES", podWaitTries);
        out.put("KGPU_REVALIDATE_INTERVAL_SECONDS", revalidateInterval.toSeconds());
        out.put("MIG_STRATEGY", migStrategy.id());
        out.put("NVIDIA_DRIVER_ROOT", roots.driverRoot());
        out.put("DRIVER_ROOT_CTR_PATH", roots.driverRootCtrPath());
        out.put("NVIDIA_DEV_ROOT", roots.devRoot());
        out.put("DEV_ROOT_CTR_PATH", roots.devRootCtrPath());
        out.put("KGPU_CDI_SPEC_DIR", cdiSpecDir.map(Path::toString).orElse(""));
        out.put("KGPU_SIMULATED_DEVICE_NODES", simulatedDeviceNodes);
        out.put("KGPU_CUDA_SAMPLE_IMAGE", samplePod.image());
        out.put("VALIDATOR_IMAGE", validatorImage.orElse(""));
        out.put("VALIDATOR_IMAGE_PULL_POLICY", samplePod.pullPolicy().orElse(""));
        out.put("VALIDATOR_IMAGE_PULL_SECRETS", samplePod.pullSecrets());
        out.put("VALIDATOR_RUNTIME_CLASS", samplePod.runtimeClass().orElse(""));
        return out;
    }

    /** Whether any component talks to the Kubernetes API. */
    public boolean needsCluster() {
        return components.contains(Component.PLUGIN) || components.contains(Component.CUDA);
    }
}
