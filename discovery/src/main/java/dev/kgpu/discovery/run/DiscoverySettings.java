package dev.kgpu.discovery.run;

import dev.kgpu.agent.Backoff;
import dev.kgpu.discovery.labels.LabelSettings;
import dev.kgpu.discovery.settings.LabelSinkKind;

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
 * @param sink              the sink named by {@code KGPU_LABEL_SINK}; {@code auto} is chosen at the first pass
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
        LabelSinkKind sink,
        Optional<String> nodeName,
        Optional<String> namespace,
        Optional<String> podName,
        Path sysfsRoot,
        Backoff.Policy retry) {

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
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(podName, "podName");
        Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        Objects.requireNonNull(retry, "retry");
    }

    /** Whether the file sink removes its file at exit: GFD does unless it runs once or sleeps forever. */
    public boolean removeOutputFileOnExit() {
        return !oneshot && sleepInterval.isPresent();
    }
}
