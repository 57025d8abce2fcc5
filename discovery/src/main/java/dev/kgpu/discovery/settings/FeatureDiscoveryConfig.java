package dev.kgpu.discovery.settings;

import dev.kgpu.agent.ExecutablePages;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.HttpSettings;
import dev.kgpu.agent.settings.NvmlSettings;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.ConfigException;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.Config;
import dev.kgpu.config.v1.ConfigJson;
import dev.kgpu.config.v1.FileField;
import dev.kgpu.config.v1.GfdFlags;
import dev.kgpu.config.v1.SleepInterval;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.nvml.NvmlOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Everything feature discovery is configured with: the effective config v1 ({@link #config()}), where
 * labels go, and the Kubernetes settings NVIDIA's GFD keeps outside the file. Flags and environment
 * variables carry NVIDIA's names ({@code cmd/gpu-feature-discovery/main.go}), plus kgpu's
 * {@code KGPU_LABEL_SINK}.
 *
 * <pre>{@code
 * ConfigLoader<FeatureDiscoveryConfig> loader = FeatureDiscoveryConfig.loader(args, System::getenv);
 * FeatureDiscoveryConfig config = loader.load();      // ConfigException: print getMessage(), exit(exitCode())
 * LabelSinkKind sink = config.labelSink().settled(nodeFeatureCrdServed);
 * switch (config.gfd().sleepInterval()) { ... }
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 *
 * @param config       the effective config file, flags and environment applied
 * @param configFile   the config file read, if any ({@code --config-file}, {@code GFD_CONFIG_FILE}, {@code CONFIG_FILE})
 * @param labelSink    where labels go; {@link LabelSinkKind#AUTO} is settled by {@link LabelSinkKind#settled}
 * @param nodeName     this node ({@code NODE_NAME}); present unless the sink is {@link LabelSinkKind#FILE}
 * @param namespace    where the NodeFeature object lives ({@code NAMESPACE}, default {@code default})
 * @param podName      this pod, for owner references ({@code POD_NAME})
 * @param kubeconfig   a kubeconfig file for running outside the cluster ({@code KUBECONFIG})
 * @param kubeApiQps   client rate limit ({@code KUBE_API_QPS}, default 5)
 * @param kubeApiBurst client burst ({@code KUBE_API_BURST}, default 10)
 * @param sysfsRoot    where sysfs is mounted, for {@code gpu.mode} and vGPU detection ({@code KGPU_SYSFS_ROOT},
 *                     default {@code /sys})
 * @param nvml         where NVML is loaded from ({@code KGPU_NVML_LIBRARY}, {@code NVIDIA_DRIVER_ROOT})
 * @param warnings     accepted but suspicious settings, to log at WARN
 * @param releaseStartupPages whether a native discovery unmaps its start-up pages before its first pass and a daemon
 *                     hands them back after it
 *                     ({@code KGPU_RELEASE_STARTUP_PAGES}, {@link ExecutablePages})
 */
public record FeatureDiscoveryConfig(
        Config config,
        Optional<Path> configFile,
        LabelSinkKind labelSink,
        Optional<String> nodeName,
        String namespace,
        Optional<String> podName,
        Optional<Path> kubeconfig,
        double kubeApiQps,
        int kubeApiBurst,
        Path sysfsRoot,
        NvmlOptions nvml,
        List<ConfigWarning> warnings,
        boolean releaseStartupPages) {

    static final String NAME = "feature discovery";

    static final Setting<String> CONFIG_FILE = Setting.of(List.of("config-file"),
            List.of("GFD_CONFIG_FILE", "CONFIG_FILE"), ValueType.string(), "",
            "the config file (NVIDIA's config v1), as an alternative to flags and environment");
    static final Setting<LabelSinkKind> LABEL_SINK = Setting.of(List.of("label-sink"), List.of("KGPU_LABEL_SINK"),
            ValueType.oneOf(LabelSinkKind.class), LabelSinkKind.AUTO,
            "kgpu: where labels go: node, nodefeature, file, or auto (nodefeature when NFD's CRD is served, else node)");
    static final Setting<String> NODE_NAME = Setting.of(List.of("node-name"), List.of("NODE_NAME"),
            ValueType.kubernetesName(), "", "this node's name (from the pod's spec.nodeName)");
    static final Setting<String> NAMESPACE = Setting.of(List.of("namespace"), List.of("NAMESPACE"),
            ValueType.kubernetesName(), "default", "the namespace of the NodeFeature object");
    static final Setting<String> POD_NAME = Setting.of(List.of("pod-name"), List.of("POD_NAME"),
            ValueType.kubernetesName(), "", "this pod's name, for owner references on the NodeFeature object");
    static final Setting<String> KUBECONFIG = Setting.of(List.of("kubeconfig"), List.of("KUBECONFIG"),
            ValueType.string(), "", "a kubeconfig file, when running outside the cluster");
    static final Setting<Double> KUBE_API_QPS = Setting.of(List.of("kube-api-qps"), List.of("KUBE_API_QPS"),
            ValueType.positiveNumber(), 5.0, "queries per second to the API server");
    static final Setting<Integer> KUBE_API_BURST = Setting.of(List.of("kube-api-burst"), List.of("KUBE_API_BURST"),
            ValueType.positiveInt(), 10, "burst of queries to the API server");

    static final Setting<Optional<String>> SYSFS_ROOT = Setting.of(List.of(), List.of("KGPU_SYSFS_ROOT"),
            ValueType.optional(ValueType.absolutePath()), Optional.empty(),
            "kgpu: where sysfs is mounted, for gpu.mode and vGPU detection (default /sys)");

    static final Setting<SleepInterval> SLEEP_INTERVAL = Setting.of(FileField.SLEEP_INTERVAL, List.of("sleep-interval"),
            List.of("GFD_SLEEP_INTERVAL"), "time between labelling passes, a Go duration such as 60s, or 'infinite'");

    /** NVIDIA's GFD flags and variables, in its order, then kgpu's. */
    public static final List<Setting<?>> SETTINGS = List.of(
            Setting.of(FileField.MIG_STRATEGY, List.of("mig-strategy"), List.of("GFD_MIG_STRATEGY", "MIG_STRATEGY"),
                    "how MIG devices are exposed: none, single or mixed"),
            Setting.of(FileField.FAIL_ON_INIT_ERROR, List.of("fail-on-init-error"),
                    List.of("GFD_FAIL_ON_INIT_ERROR", "FAIL_ON_INIT_ERROR"),
                    "exit when NVML cannot start, rather than publish minimal labels and retry"),
            Setting.of(FileField.ONESHOT, List.of("oneshot"), List.of("GFD_ONESHOT"), "label once and exit"),
            Setting.of(FileField.NO_TIMESTAMP, List.of("no-timestamp"), List.of("GFD_NO_TIMESTAMP"),
                    "leave out the nvidia.com/gfd.timestamp label"),
            SLEEP_INTERVAL,
            Setting.of(FileField.OUTPUT_FILE, List.of("output-file", "output", "o"), List.of("GFD_OUTPUT_FILE"),
                    "the NFD feature file written by the file sink"),
            Setting.of(FileField.MACHINE_TYPE_FILE, List.of("machine-type-file"), List.of("GFD_MACHINE_TYPE_FILE"),
                    "the file the nvidia.com/gpu.machine label is read from"),
            CONFIG_FILE,
            Setting.of(FileField.USE_NODE_FEATURE_API, List.of("use-node-feature-api"),
                    List.of("GFD_USE_NODE_FEATURE_API", "USE_NODE_FEATURE_API"),
                    "publish through NFD's NodeFeature API; false selects the file sink"),
            Setting.of(FileField.DEVICE_DISCOVERY_STRATEGY, List.of("device-discovery-strategy"),
                    List.of("DEVICE_DISCOVERY_STRATEGY"), "how devices are found: auto, nvml, tegra or vfio"),
            Setting.of(FileField.CONTAINER_DRIVER_ROOT, List.of("driver-root-ctr-path", "container-driver-root"),
                    List.of("DRIVER_ROOT_CTR_PATH", "CONTAINER_DRIVER_ROOT"),
                    "where the driver root is mounted in this container"),
            KUBECONFIG,
            KUBE_API_QPS,
            KUBE_API_BURST,
            NAMESPACE,
            NODE_NAME,
            POD_NAME,
            LABEL_SINK,
            SYSFS_ROOT,
            NvmlSettings.LIBRARY,
            NvmlSettings.DRIVER_ROOT,
            HttpSettings.PORT,
            ExecutablePages.SETTING);

    public FeatureDiscoveryConfig {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(configFile, "configFile");
        Objects.requireNonNull(labelSink, "labelSink");
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(podName, "podName");
        Objects.requireNonNull(kubeconfig, "kubeconfig");
        Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        Objects.requireNonNull(nvml, "nvml");
        warnings = List.copyOf(warnings);
        List<ValidationFailure> failures = new ArrayList<>();
        if (labelSink != LabelSinkKind.FILE && nodeName.isEmpty()) {
            failures.add(ValidationFailure.missing("NODE_NAME", "must name this node (set it from the pod's"
                    + " spec.nodeName) for the " + labelSink + " label sink; only the file sink works without it"));
        }
        if (labelSink == LabelSinkKind.FILE && config.flags().gfd().outputFile().isEmpty()) {
            failures.add(new ValidationFailure(FileField.OUTPUT_FILE.path(), "", "must name the feature file for the file label sink"));
        }
        if (namespace.isEmpty()) {
            failures.add(new ValidationFailure("NAMESPACE", "", "must name a namespace"));
        }
        if (!(kubeApiQps > 0) || Double.isInfinite(kubeApiQps)) {
            failures.add(new ValidationFailure("KUBE_API_QPS", Double.toString(kubeApiQps), "must be a positive number"));
        }
        if (kubeApiBurst <= 0) {
            failures.add(new ValidationFailure("KUBE_API_BURST", Integer.toString(kubeApiBurst), "must be a positive integer"));
        }
        if (!failures.isEmpty()) {
            throw new InvalidConfigException(failures);
        }
    }

    /**
     * Loads feature discovery's configuration once.
     *
     * @param args        the command line, without the program name
     * @param environment {@code System::getenv} in production
     * @throws UsageRequestedException after {@code --help}: print the message and exit 0
     * @throws InvalidConfigException  listing every bad setting: print the message and exit 1
     */
    public static FeatureDiscoveryConfig load(String[] args, Function<String, String> environment) {
        return loader(args, environment).load();
    }

    /** A loader that can also {@link ConfigLoader#reload() reload} on SIGHUP. */
    public static ConfigLoader<FeatureDiscoveryConfig> loader(String[] args, Function<String, String> environment) {
        return new ConfigLoader<>(new ConfigLoader.Agent<>(NAME, SETTINGS, Optional.of(CONFIG_FILE), resolved -> {
            Config config = resolved.config(SETTINGS);
            LabelSinkKind sink = resolved.get(LABEL_SINK);
            if (sink == LabelSinkKind.AUTO && !config.flags().useNodeFeatureAPI()) {
                sink = LabelSinkKind.FILE; // NVIDIA's GFD writes the feature file when the NodeFeature API is off
            }
            List<ConfigWarning> warnings = new ArrayList<>(resolved.warnings());
            if (config.flags().gfd().sleepInterval() instanceof SleepInterval.Every every && every.duration().isNegative()) {
                // NVIDIA's GFD relabels in a busy loop with it; no one means a negative pause, so it is refused
                resolved.fail(SLEEP_INTERVAL, every.goString(),
                        "must not be negative: a Go duration such as 60s (0 relabels without pause) or 'infinite'");
            } else if (config.flags().gfd().sleepInterval() instanceof SleepInterval.Every every && every.raised()) {
                warnings.add(new ConfigWarning(resolved.property(SLEEP_INTERVAL), "is " + every.goString()
                        + ", which NVIDIA's GFD accepts and then relabels without pause (a bare number is nanoseconds);"
                        + " kgpu relabels every " + SleepInterval.SHORTEST.toSeconds() + "s"));
            }
            return new FeatureDiscoveryConfig(config, resolved.configFile(), sink,
                    optional(resolved.get(NODE_NAME)), resolved.get(NAMESPACE), optional(resolved.get(POD_NAME)),
                    optional(resolved.get(KUBECONFIG)).map(Path::of), resolved.get(KUBE_API_QPS),
                    resolved.get(KUBE_API_BURST), Path.of(resolved.get(SYSFS_ROOT).orElse("/sys")), NvmlSettings.options(resolved),
                    warnings, resolved.get(ExecutablePages.SETTING));
        }), args, environment);
    }

    /** {@code flags.gfd}: oneshot, timestamp, sleep interval, output and machine-type files. */
    public GfdFlags gfd() {
        return config.flags().gfd();
    }

    /** The effective config as NVIDIA's GFD logs it after "Running with config:" (no {@code flags.plugin}). */
    public String toJson() {
        return ConfigJson.toJson(config, ConfigJson.Blocks.FEATURE_DISCOVERY);
    }

    private static Optional<String> optional(String value) {
        return value.isEmpty() ? Optional.empty() : Optional.of(value);
    }
}
