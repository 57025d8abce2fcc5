package dev.kgpu.validator.config;

import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.NvmlSettings;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.agent.settings.HttpSettings;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.DriverRoots;
import dev.kgpu.validator.core.GpuWorkload;
import dev.kgpu.validator.core.SamplePod;

import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Everything the validator was told, validated: NVIDIA's flags, variables and defaults (gpu-operator
 * {@code cmd/nvidia-validator/main.go}) plus kgpu's {@code KGPU_*} settings, read once through the shared
 * {@link ConfigLoader} ({@link #load}). Every component is present and checked.
 *
 * @param components           what to validate, in dependency order ({@code COMPONENT}; all four when unset)
 * @param mode                 {@code KGPU_VALIDATOR_MODE}: one pass, or a daemon re-validating on an interval
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
 * @param migStrategy          {@code MIG_STRATEGY}: which resource the sample pods request
 * @param roots                the driver's and device nodes' roots, on the host and in this container
 * @param nvml                 where NVML is loaded from: {@code KGPU_NVML_LIBRARY}, else under
 *                             {@code DRIVER_ROOT_CTR_PATH}
 * @param cdiSpecDir           when present, {@code toolkit} requires the CDI names of every device to resolve there
 * @param simulatedDeviceNodes accept regular files as device nodes (simulated nodes only)
 * @param samplePod            the sample pods' image, pull policy and secrets, runtime class
 * @param validatorImage       {@code VALIDATOR_IMAGE}, the validator's own image, recorded only
 * @param pluginDeviceClass    {@code KGPU_PLUGIN_DEVICE_CLASS}: when present, {@code plugin} validates the DRA driver
 *                             (its ResourceSlices, a sample pod claiming one device of this DeviceClass) instead
 *                             of {@code nvidia.com/gpu}
 * @param metricsPort          {@code METRICS_PORT}: where {@code COMPONENT=metrics} serves {@code /metrics}
 *                             (required for it, as in NVIDIA's validator)
 * @param hostRoot             {@code KGPU_HOST_ROOT}: the root {@code proc/modules}, {@code sys/bus/pci/devices}
 *                             and {@code run/mellanox/drivers} are read under ({@code /} on a node)
 * @param gpuDirectRdma        {@code GPU_DIRECT_RDMA_ENABLED}: {@code mofed} checks MOFED only when it is true
 * @param hostMofed            {@code USE_HOST_MOFED}: MOFED is the host's ({@code mlx5_core}), not a driver container's
 * @param defaultWorkload      {@code DEFAULT_GPU_WORKLOAD_CONFIG}: the GPU workload of a node without (a valid)
 *                             {@code nvidia.com/gpu.workload.config} label, for {@code vfio-pci} and {@code vgpu-devices}
 * @param warnings             values NVIDIA accepts that kgpu runs differently (a sleep interval below 1 s), logged at WARN
 */
public record ValidatorSettings(List<Component> components, Mode mode, String nodeName, String namespace,
                                Path outputDir, boolean withWait, boolean withWorkload, boolean cleanupAll,
                                Duration sleepInterval, int pluginWaitTries, int podWaitTries,
                                Duration revalidateInterval, MigStrategy migStrategy, DriverRoots roots,
                                NvmlOptions nvml, Optional<Path> cdiSpecDir, boolean simulatedDeviceNodes,
                                SamplePod samplePod, Optional<String> validatorImage,
                                Optional<String> pluginDeviceClass, int metricsPort, Path hostRoot,
                                boolean gpuDirectRdma, boolean hostMofed, GpuWorkload defaultWorkload,
                                List<ConfigWarning> warnings) {

    /** The binary, in messages. */
    public static final String NAME = "kgpu-validator";
    public static final String DEFAULT_OUTPUT_DIR = "/run/nvidia/validations";
    public static final String DEFAULT_CUDA_SAMPLE_IMAGE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0";

    private static final Set<String> PULL_POLICIES = Set.of("Always", "IfNotPresent", "Never");
    private static final java.util.regex.Pattern DNS_SUBDOMAIN =
            java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    static final Setting<List<Component>> COMPONENT = Setting.of(List.of("component", "c"), List.of("COMPONENT"),
            ValueType.of("cc-manager|vfio-pci|vgpu-devices|driver|nvidia-fs|gdrcopy|nvidia-peermem|mofed|toolkit|plugin"
                            + "|cuda[,...]|all|metrics",
                    ValidatorSettings::components, list -> list.stream().map(Component::id).collect(Collectors.joining(","))),
            Component.ALL, "what to validate: cc-manager, vfio-pci, vgpu-devices, driver, nvidia-fs, gdrcopy,"
                    + " nvidia-peermem, mofed, toolkit, plugin, cuda, a comma-separated list, or all (driver, toolkit,"
                    + " plugin, cuda); or metrics, gpu-operator's node-status exporter, alone");
    static final Setting<String> NODE_NAME = Setting.of(List.of("node-name", "n"), List.of("NODE_NAME"),
            ValueType.string(), "", "this node (from the pod's spec.nodeName); required for plugin, cuda, metrics,"
                    + " cc-manager, vfio-pci and vgpu-devices");
    static final Setting<String> NAMESPACE = Setting.of(List.of("namespace", "ns"),
            List.of("OPERATOR_NAMESPACE", "NAMESPACE"), ValueType.string(), "",
            "where sample pods run; required for plugin and cuda");
    static final Setting<String> OUTPUT_DIR = Setting.of(List.of("output-dir", "o"), List.of("OUTPUT_DIR"),
            ValueType.absolutePath(), DEFAULT_OUTPUT_DIR, "where the *-ready files go");
    static final Setting<Boolean> WITH_WAIT = Setting.of(List.of("with-wait", "w"), List.of("WITH_WAIT"),
            ValueType.bool(), false, "retry driver and toolkit every interval until they pass");
    static final Setting<Boolean> WITH_WORKLOAD = Setting.of(List.of("with-workload", "l"), List.of("WITH_WORKLOAD"),
            ValueType.bool(), true, "plugin also runs a sample pod");
    static final Setting<Boolean> CLEANUP_ALL = Setting.of(List.of("cleanup-all", "r"), List.of("CLEANUP_ALL"),
            ValueType.bool(), false, "remove every *-ready file first");
    static final Setting<Duration> SLEEP_INTERVAL = Setting.of(List.of("sleep-interval-seconds", "s"),
            List.of("SLEEP_INTERVAL_SECONDS"), ValueType.duration(ChronoUnit.SECONDS, Integer.MIN_VALUE, Integer.MAX_VALUE),
            Duration.ofSeconds(5), "seconds between polls and retries; below 1, 1");
    /** NVIDIA's validator accepts any whole number of seconds and polls without pause below 1; kgpu waits 1 s. */
    static final Duration SHORTEST_SLEEP = Duration.ofSeconds(1);
    static final Setting<MigStrategy> MIG_STRATEGY = Setting.of(List.of("mig-strategy", "m"), List.of("MIG_STRATEGY"),
            ValueType.oneOf(MigStrategy.class), MigStrategy.SINGLE, "which resource sample pods request: none, single, mixed");
    static final Setting<String> DRIVER_ROOT = Setting.of(List.of("driver-root"), List.of("NVIDIA_DRIVER_ROOT"),
            ValueType.absolutePath(), "/", "host path of the driver (/run/nvidia/driver for a driver container)");
    static final Setting<Optional<String>> DRIVER_ROOT_CTR_PATH = Setting.of(List.of(), List.of("DRIVER_ROOT_CTR_PATH"),
            ValueType.optional(ValueType.absolutePath()), Optional.empty(),
            "where this container sees the driver root (/host for a host driver, else /run/nvidia/driver)");
    static final Setting<String> DEV_ROOT = Setting.of(List.of("dev-root"), List.of("NVIDIA_DEV_ROOT"),
            ValueType.absolutePath(), "/", "root under which dev/nvidia* are checked");
    static final Setting<Optional<String>> DEV_ROOT_CTR_PATH = Setting.of(List.of(), List.of("DEV_ROOT_CTR_PATH"),
            ValueType.optional(ValueType.absolutePath()), Optional.empty(), "where this container sees the dev root");
    static final Setting<Optional<String>> VALIDATOR_IMAGE = Setting.of(List.of(), List.of("VALIDATOR_IMAGE"),
            ValueType.optional(ValueType.string()), Optional.empty(), "NVIDIA's validator image; recorded only");
    static final Setting<Optional<String>> PULL_POLICY = Setting.of(List.of(), List.of("VALIDATOR_IMAGE_PULL_POLICY"),
            ValueType.optional(ValueType.of("Always|IfNotPresent|Never", policy -> {
                if (!PULL_POLICIES.contains(policy)) {
                    throw new IllegalArgumentException("must be Always, IfNotPresent or Never");
                }
                return policy;
            }, policy -> policy)), Optional.empty(), "the sample pods' image pull policy");
    static final Setting<List<String>> PULL_SECRETS = Setting.of(List.of(), List.of("VALIDATOR_IMAGE_PULL_SECRETS"),
            ValueType.stringList(), List.of(), "the sample pods' image pull secrets");
    static final Setting<Optional<String>> RUNTIME_CLASS = Setting.of(List.of(), List.of("VALIDATOR_RUNTIME_CLASS"),
            ValueType.optional(ValueType.string()), Optional.empty(), "the sample pods' runtimeClassName");
    static final Setting<String> CUDA_SAMPLE_IMAGE = Setting.of(List.of("cuda-sample-image"),
            List.of("KGPU_CUDA_SAMPLE_IMAGE"), ValueType.of("image", image -> {
                if (image.isEmpty() || image.chars().anyMatch(Character::isWhitespace)) {
                    throw new IllegalArgumentException("must be an image reference without spaces");
                }
                return image;
            }, image -> image), DEFAULT_CUDA_SAMPLE_IMAGE, "kgpu: the sample pods' image; its own command runs vectorAdd");
    static final Setting<Optional<String>> CDI_SPEC_DIR = Setting.of(List.of("cdi-spec-dir"), List.of("KGPU_CDI_SPEC_DIR"),
            ValueType.optional(ValueType.absolutePath()), Optional.empty(),
            "kgpu: toolkit then requires the CDI names of every device to resolve in this folder");
    static final Setting<Boolean> SIMULATED_DEVICE_NODES = Setting.of(List.of(), List.of("KGPU_SIMULATED_DEVICE_NODES"),
            ValueType.bool(), false, "kgpu: accept regular files as device nodes (simulated nodes only)");
    static final Setting<Mode> MODE = Setting.of(List.of("mode"), List.of("KGPU_VALIDATOR_MODE"),
            ValueType.oneOf(Mode.class), Mode.ONESHOT, "kgpu: oneshot (an init container) or daemon");
    static final Setting<Duration> REVALIDATE_INTERVAL = Setting.of(List.of(), List.of("KGPU_REVALIDATE_INTERVAL_SECONDS"),
            ValueType.duration(ChronoUnit.SECONDS, 10, 86_400), Duration.ofSeconds(300), "kgpu: daemon mode's time between passes");
    static final Setting<Integer> PLUGIN_WAIT_TRIES = Setting.of(List.of(), List.of("KGPU_PLUGIN_WAIT_TRIES"),
            ValueType.wholeNumber(1, 10_000, ""), 30, "kgpu: polls of the node's GPU resources (NVIDIA: 30)");
    static final Setting<Integer> POD_WAIT_TRIES = Setting.of(List.of(), List.of("KGPU_POD_WAIT_TRIES"),
            ValueType.wholeNumber(1, 10_000, ""), 60, "kgpu: polls of a sample pod (NVIDIA: 60)");

    static final Setting<Optional<String>> PLUGIN_DEVICE_CLASS = Setting.of(List.of("plugin-device-class"),
            List.of("KGPU_PLUGIN_DEVICE_CLASS"), ValueType.optional(ValueType.of("DeviceClass", name -> {
                if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
                    throw new IllegalArgumentException("must name a DeviceClass (a DNS subdomain such as gpu.nvidia.com)");
                }
                return name;
            }, name -> name)), Optional.empty(),
            "kgpu: plugin validates DRA instead of nvidia.com/gpu: the node's gpu.nvidia.com ResourceSlices, and a"
                    + " sample pod claiming one device of this DeviceClass");

    static final Setting<Integer> METRICS_PORT = Setting.of(List.of("metrics-port", "p"), List.of("METRICS_PORT"),
            ValueType.wholeNumber(0, 65_535, ""), 0, "the port COMPONENT=metrics serves /metrics on (required for it)");
    static final Setting<Boolean> GPU_DIRECT_RDMA_ENABLED = Setting.of(List.of(), List.of("GPU_DIRECT_RDMA_ENABLED"),
            ValueType.bool(), false, "mofed checks the MOFED driver only when GPUDirect RDMA is enabled");
    static final Setting<Boolean> USE_HOST_MOFED = Setting.of(List.of(), List.of("USE_HOST_MOFED"),
            ValueType.bool(), false, "mofed: MOFED is installed on the host (mlx5_core), not by a driver container");
    static final Setting<String> HOST_ROOT = Setting.of(List.of(), List.of("KGPU_HOST_ROOT"), ValueType.absolutePath(),
            "/", "kgpu: the root proc/modules, sys/bus/pci/devices, sys/bus/mdev/devices and run/mellanox/drivers are"
                    + " read under");
    static final Setting<GpuWorkload> DEFAULT_GPU_WORKLOAD_CONFIG = Setting.of(List.of("default-gpu-workload-config", "g"),
            List.of("DEFAULT_GPU_WORKLOAD_CONFIG"), ValueType.oneOf(GpuWorkload.class), GpuWorkload.CONTAINER,
            "the GPU workload of a node without a valid nvidia.com/gpu.workload.config label (vfio-pci, vgpu-devices)");

    /** The validator's flags and variables, in usage order. */
    static final List<Setting<?>> SETTINGS = List.of(COMPONENT, NODE_NAME, NAMESPACE, OUTPUT_DIR, WITH_WAIT,
            WITH_WORKLOAD, CLEANUP_ALL, SLEEP_INTERVAL, MIG_STRATEGY, DRIVER_ROOT, DRIVER_ROOT_CTR_PATH, DEV_ROOT,
            DEV_ROOT_CTR_PATH, VALIDATOR_IMAGE, PULL_POLICY, PULL_SECRETS, RUNTIME_CLASS, NvmlSettings.LIBRARY,
            CUDA_SAMPLE_IMAGE, CDI_SPEC_DIR, SIMULATED_DEVICE_NODES, MODE, REVALIDATE_INTERVAL, PLUGIN_WAIT_TRIES,
            POD_WAIT_TRIES, PLUGIN_DEVICE_CLASS, METRICS_PORT, GPU_DIRECT_RDMA_ENABLED, USE_HOST_MOFED, HOST_ROOT,
            DEFAULT_GPU_WORKLOAD_CONFIG, HttpSettings.PORT);

    public ValidatorSettings {
        components = List.copyOf(components);
        if (components.isEmpty()) {
            throw InvalidConfigException.of("COMPONENT", "", "must name at least one component");
        }
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(outputDir, "outputDir");
        Objects.requireNonNull(sleepInterval, "sleepInterval");
        Objects.requireNonNull(revalidateInterval, "revalidateInterval");
        Objects.requireNonNull(migStrategy, "migStrategy");
        Objects.requireNonNull(roots, "roots");
        Objects.requireNonNull(nvml, "nvml");
        Objects.requireNonNull(cdiSpecDir, "cdiSpecDir");
        Objects.requireNonNull(samplePod, "samplePod");
        Objects.requireNonNull(validatorImage, "validatorImage");
        Objects.requireNonNull(pluginDeviceClass, "pluginDeviceClass");
        Objects.requireNonNull(hostRoot, "hostRoot");
        Objects.requireNonNull(defaultWorkload, "defaultWorkload");
        warnings = List.copyOf(warnings);
        List<ValidationFailure> failures = new ArrayList<>();
        if (components.contains(Component.METRICS)) {
            if (metricsPort == 0) {
                failures.add(new ValidationFailure("METRICS_PORT", "0", "must be the port to serve /metrics on for the"
                        + " metrics component (gpu-operator's node-status exporter sets 8000)"));
            }
            if (nodeName.isEmpty()) {
                failures.add(new ValidationFailure("NODE_NAME", "", "must name this node for the metrics component"
                        + " (set it from the pod's spec.nodeName)"));
            }
        }
        if (readsTheNode(components) && nodeName.isEmpty()) {
            failures.add(new ValidationFailure("NODE_NAME", "", "must name this node for the plugin, cuda, cc-manager,"
                    + " vfio-pci and vgpu-devices components (set it from the pod's spec.nodeName)"));
        }
        if (runsSamplePods(components) && namespace.isEmpty()) {
            failures.add(new ValidationFailure("OPERATOR_NAMESPACE", "", "must name the namespace for sample pods"
                    + " when validating plugin or cuda (NAMESPACE is read too)"));
        }
        if (!failures.isEmpty()) {
            throw new InvalidConfigException(failures);
        }
    }

    /**
     * Reads and validates every setting once: a flag wins over its variable, which wins over the default.
     * Unlike the other agents, the validator treats a variable that is empty or blank as unset, and strips
     * the blanks around a value, as it always has.
     *
     * @param args        the command line, without the program name
     * @param environment reads one variable, null when unset
     * @throws UsageRequestedException after {@code --help}: print the message and exit 0
     * @throws InvalidConfigException  listing every bad setting: print the message and exit 1
     */
    public static ValidatorSettings load(String[] args, Function<String, String> environment) {
        Function<String, String> set = name -> {
            String value = environment.apply(name);
            return value == null || value.isBlank() ? null : value.strip();
        };
        return new ConfigLoader<>(new ConfigLoader.Agent<>(NAME, SETTINGS, resolved -> {
            DriverRoots roots = roots(resolved);
            return new ValidatorSettings(resolved.get(COMPONENT), resolved.get(MODE), resolved.get(NODE_NAME),
                    resolved.get(NAMESPACE),
                    Path.of(resolved.get(OUTPUT_DIR)), resolved.get(WITH_WAIT), resolved.get(WITH_WORKLOAD),
                    resolved.get(CLEANUP_ALL), resolved.atLeast(SLEEP_INTERVAL, SHORTEST_SLEEP, "polls without pause below 1"),
                    resolved.get(PLUGIN_WAIT_TRIES),
                    resolved.get(POD_WAIT_TRIES), resolved.get(REVALIDATE_INTERVAL), resolved.get(MIG_STRATEGY), roots,
                    NvmlSettings.options(resolved, Path.of(roots.driverRootCtrPath())),
                    resolved.get(CDI_SPEC_DIR).map(Path::of), resolved.get(SIMULATED_DEVICE_NODES),
                    new SamplePod(resolved.get(CUDA_SAMPLE_IMAGE), resolved.get(PULL_POLICY), resolved.get(PULL_SECRETS),
                            resolved.get(RUNTIME_CLASS)),
                    resolved.get(VALIDATOR_IMAGE), resolved.get(PLUGIN_DEVICE_CLASS), resolved.get(METRICS_PORT),
                    Path.of(resolved.get(HOST_ROOT)), resolved.get(GPU_DIRECT_RDMA_ENABLED), resolved.get(USE_HOST_MOFED),
                    resolved.get(DEFAULT_GPU_WORKLOAD_CONFIG), resolved.warnings());
        }), args, set).load();
    }

    /** NVIDIA's defaults for where this container sees the driver and dev roots. */
    private static DriverRoots roots(ConfigLoader.Resolved resolved) {
        String driverRoot = normal(resolved.get(DRIVER_ROOT));
        String driverRootCtr = resolved.get(DRIVER_ROOT_CTR_PATH).map(ValidatorSettings::normal)
                .orElse(driverRoot.equals("/") ? "/host" : "/run/nvidia/driver");
        String devRoot = normal(resolved.get(DEV_ROOT));
        String devRootCtr = resolved.get(DEV_ROOT_CTR_PATH).map(ValidatorSettings::normal)
                .orElse(devRoot.equals(driverRoot) ? driverRootCtr : devRoot.equals("/") ? "/host" : devRoot);
        return new DriverRoots(driverRoot, driverRootCtr, devRoot, devRootCtr);
    }

    private static String normal(String path) {
        return Path.of(path).normalize().toString();
    }

    /**
     * {@code all}, {@code metrics} alone, or components in any order and case; always in dependency order.
     * gpu-operator's components kgpu does not implement are refused, each naming why.
     */
    private static List<Component> components(String text) {
        if (text.equalsIgnoreCase("all")) {
            return Component.ALL;
        }
        Set<Component> chosen = EnumSet.noneOf(Component.class);
        for (String part : text.split(",")) {
            String id = part.strip().toLowerCase(Locale.ROOT);
            if (Component.UNSUPPORTED.containsKey(id)) {
                throw new IllegalArgumentException("names " + id + ", a gpu-operator component kgpu's validator does not"
                        + " support: " + Component.UNSUPPORTED.get(id));
            }
            chosen.add(Component.byId(id).orElseThrow(() -> new IllegalArgumentException("must be cc-manager, vfio-pci,"
                    + " vgpu-devices, driver, nvidia-fs, gdrcopy, nvidia-peermem, mofed, toolkit, plugin, cuda, a"
                    + " comma-separated list of them, all, or metrics")));
        }
        if (chosen.contains(Component.METRICS) && chosen.size() > 1) {
            throw new IllegalArgumentException("must name metrics alone: the node-status exporter runs on its own");
        }
        return Arrays.stream(Component.values()).filter(chosen::contains).toList();
    }

    /** The effective settings under NVIDIA's (and kgpu's) names, for the start-up log line. */
    public Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("COMPONENT", components.stream().map(Component::id).toList());
        out.put("KGPU_VALIDATOR_MODE", mode.wireName());
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
        out.put("MIG_STRATEGY", migStrategy.wireName());
        out.put("NVIDIA_DRIVER_ROOT", roots.driverRoot());
        out.put("DRIVER_ROOT_CTR_PATH", roots.driverRootCtrPath());
        out.put("NVIDIA_DEV_ROOT", roots.devRoot());
        out.put("DEV_ROOT_CTR_PATH", roots.devRootCtrPath());
        out.put("KGPU_NVML_LIBRARY", nvml.library().map(Path::toString).orElse(""));
        out.put("KGPU_CDI_SPEC_DIR", cdiSpecDir.map(Path::toString).orElse(""));
        out.put("KGPU_SIMULATED_DEVICE_NODES", simulatedDeviceNodes);
        out.put("KGPU_CUDA_SAMPLE_IMAGE", samplePod.image());
        out.put("VALIDATOR_IMAGE", validatorImage.orElse(""));
        out.put("VALIDATOR_IMAGE_PULL_POLICY", samplePod.pullPolicy().orElse(""));
        out.put("VALIDATOR_IMAGE_PULL_SECRETS", samplePod.pullSecrets());
        out.put("VALIDATOR_RUNTIME_CLASS", samplePod.runtimeClass().orElse(""));
        out.put("KGPU_PLUGIN_DEVICE_CLASS", pluginDeviceClass.orElse(""));
        out.put("METRICS_PORT", metricsPort);
        out.put("GPU_DIRECT_RDMA_ENABLED", gpuDirectRdma);
        out.put("USE_HOST_MOFED", hostMofed);
        out.put("KGPU_HOST_ROOT", hostRoot.toString());
        out.put("DEFAULT_GPU_WORKLOAD_CONFIG", defaultWorkload.wireName());
        return out;
    }

    /** Whether any of {@code components} reads this node from the Kubernetes API. */
    private static boolean readsTheNode(List<Component> components) {
        return runsSamplePods(components) || components.contains(Component.CC_MANAGER)
                || components.contains(Component.VFIO_PCI) || components.contains(Component.VGPU_DEVICES);
    }

    /** Whether any of {@code components} runs sample pods (and so needs a namespace). */
    private static boolean runsSamplePods(List<Component> components) {
        return components.contains(Component.PLUGIN) || components.contains(Component.CUDA);
    }
}
