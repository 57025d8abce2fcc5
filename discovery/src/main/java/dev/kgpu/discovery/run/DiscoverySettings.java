package dev.kgpu.discovery.run;

import dev.kgpu.agent.Backoff;
import dev.kgpu.discovery.labels.LabelSettings;
import dev.kgpu.discovery.publish.LabelSink;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the discovery agent is configured with, validated and with defaults applied.
 *
 * @param labels            what changes the labels (MIG strategy, timestamp, sharing)
 * @param oneshot           label once and exit ({@code GFD_ONESHOT})
 * @param sleepInterval     time between passes, empty for {@code infinite} ({@code GFD_SLEEP_INTERVAL})
 * @param machineTypeFile   the machine-type file, empty when configured as {@code ""} ({@code GFD_MACHINE_TYPE_FILE})
 * @param outputFile        the feature file of the file sink ({@code GFD_OUTPUT_FILE})
 * @param failOnInitError   exit when NVML cannot be used instead of publishing minimal labels ({@code FAIL_ON_INIT_ERROR})
 * @param sink              the sink named by {@code KGPU_LABEL_SINK}, empty to choose automatically
 * @param useNodeFeatureApi {@code GFD_USE_NODE_FEATURE_API} when set: false selects the file sink, true the nodefeature sink
 * @param nodeName          this node ({@code NODE_NAME}); needed by the node and nodefeature sinks
 * @param namespace         where the NodeFeature lives ({@code NAMESPACE})
 * @param podName           this pod ({@code POD_NAME}), to find the owning DaemonSet
 * @param sysfsRoot         where sysfs is mounted ({@code KGPU_SYSFS_ROOT}, default {@code /sys})
 * @param retry             backoff after a failed pass
 */
public record DiscoverySettings(
        LabelSettings labels,
        boolean oneshot,
        Optional<Duration> sleepInterval,
        Optional<Path> machineTypeFile,
        Path outputFile,
        boolean failOnInitError,
        Optional<LabelSink.Kind> sink,
        Optional<Boolean> useNodeFeatureApi,
        Optional<String> nodeName,
        Optional<String> namespace,
        Optional<String> podName,
        Path sysfsRoot,
        Backoff.Policy retry) {

    public static final Duration DEFAULT_SLEEP_INTERVAL = Duration.ofSeconds(60);
    public static final Path DEFAULT_OUTPUT_FILE = Path.of("/etc/kubernetes/node-feature-discovery/features.d/gfd");
    public static final Path DEFAULT_MACHINE_TYPE_FILE = Path.of("/sys/class/dmi/id/product_name");

    public DiscoverySettings {
        Objects.requireNonNull(labels, "labels");
        Objects.requireNonNull(sleepInterval, "sleepInterval");
        sleepInterval.ifPresent(interval -> {
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("sleepInterval was '" + interval + "' but it must be positive or 'infinite'");
            }
        });
        Objects.requireNonNull(machineTypeFile, "machineTypeFile");
        Objects.requireNonNull(outputFile, "outputFile");
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(useNodeFeatureApi, "useNodeFeatureApi");
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(podName, "podName");
        Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        Objects.requireNonNull(retry, "retry");
    }

    /** GFD's defaults, for a node named {@code nodeName} in {@code namespace}. */
    public static DiscoverySettings defaults(String nodeName, String namespace) {
        return new DiscoverySettings(LabelSettings.defaults(), false, Optional.of(DEFAULT_SLEEP_INTERVAL),
                Optional.of(DEFAULT_MACHINE_TYPE_FILE), DEFAULT_OUTPUT_FILE, true, Optional.empty(), Optional.empty(),
                Optional.of(nodeName), Optional.of(namespace), Optional.empty(), Path.of("/sys"), Backoff.Policy.DEFAULT);
    }

    public DiscoverySettings withLabels(LabelSettings value) {
        return new DiscoverySettings(value, oneshot, sleepInterval, machineTypeFile, outputFile, failOnInitError, sink,
                useNodeFeatureApi, nodeName, namespace, podName, sysfsRoot, retry);
    }

    public DiscoverySettings withSink(LabelSink.Kind value) {
        return new DiscoverySettings(labels, oneshot, sleepInterval, machineTypeFile, outputFile, failOnInitError,
                Optional.of(value), useNodeFeatureApi, nodeName, namespace, podName, sysfsRoot, retry);
    }

    public DiscoverySettings withOutputFile(Path value) {
        return new DiscoverySettings(labels, oneshot, sleepInterval, machineTypeFile, value, failOnInitError, sink,
                useNodeFeatureApi, nodeName, namespace, podName, sysfsRoot, retry);
    }

    public DiscoverySettings withTiming(boolean newOneshot, Optional<Duration> newInterval, Backoff.Policy newRetry) {
        return new DiscoverySettings(labels, newOneshot, newInterval, machineTypeFile, outputFile, failOnInitError, sink,
                useNodeFeatureApi, nodeName, namespace, podName, sysfsRoot, newRetry);
    }

    public DiscoverySettings withNode(Optional<Path> newMachineTypeFile, Path newSysfsRoot, boolean newFailOnInitError) {
        return new DiscoverySettings(labels, oneshot, sleepInterval, newMachineTypeFile, outputFile, newFailOnInitError, sink,
                useNodeFeatureApi, nodeName, namespace, podName, newSysfsRoot, retry);
    }

    /** Whether the file sink removes its file at exit: GFD does unless it runs once or sleeps forever. */
    public boolean removeOutputFileOnExit() {
        return !oneshot && sleepInterval.isPresent();
    }
}
