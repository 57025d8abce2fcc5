package dev.kgpu.plugin.node;

import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.NvmlSettings;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.GoDuration;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.plugin.config.DevicePluginConfig;
import dev.kgpu.plugin.health.HealthChecks;
import dev.kgpu.plugin.health.HealthPolicy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the node runtime runs with, whichever front-ends run: how the devices are read (NVML), watched (health) and
 * retried. Read from NVIDIA's settings and kgpu's own listed here ({@link #SETTINGS}); a reload can only change
 * {@link #failOnInitError()}, the one of them the config file sets. Immutable.
 *
 * @param failOnInitError     exit when the devices cannot be read, rather than wait and retry
 * @param health              which XIDs mark devices Unhealthy and which let them recover
 * @param healthCheckInterval how often devices are probed
 * @param nvml                where to find NVML
 * @param procRoot            where {@code proc/driver/nvidia-caps/mig-minors} and the boot id are read ({@code /}; a
 *                            simulated node's directory)
 */
public record NodeSettings(boolean failOnInitError, HealthPolicy health, Duration healthCheckInterval, NvmlOptions nvml,
                           Path procRoot) {

    /** The shortest quiet period and probe interval: shorter ones would probe NVML in a near-busy loop. */
    static final Duration SHORTEST_INTERVAL = Duration.ofSeconds(1);
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(5);

    /** kgpu: the root of the /proc file system the driver's MIG capability table is read from. */
    public static final Setting<String> PROC_ROOT = Setting.of(List.of(), List.of("KGPU_PROC_ROOT"),
            ValueType.absolutePath(), "/", "kgpu: the root proc/driver/nvidia-caps/mig-minors is read under (a"
                    + " simulated node's directory; / on a node)");
    /** kgpu: how long a device marked by a recoverable XID must stay free of critical XIDs before it is probed. */
    static final Setting<Optional<Duration>> QUIET_PERIOD = Setting.of(List.of(), List.of("KGPU_HEALTH_QUIET_PERIOD"),
            goDuration(true), Optional.empty(), "kgpu: how long a device marked by an XID must see no new critical XID"
                    + " before it is probed for recovery, at least 1s; 0 turns recovery off (default 1m)");
    /** kgpu: XIDs that normally need a GPU reset but may recover anyway. */
    static final Setting<Set<Long>> RECOVERABLE_XIDS = Setting.of(List.of(), List.of("KGPU_HEALTH_RECOVERABLE_XIDS"),
            HealthChecks.XID_LIST, Set.of(), "kgpu: XIDs that normally need a GPU reset (48, 79, ...) but may recover");
    /** kgpu: the time between device probes (and between checks of the MPS control daemons). */
    public static final Setting<Optional<Duration>> CHECK_INTERVAL = Setting.of(List.of(), List.of("KGPU_HEALTH_CHECK_INTERVAL"),
            goDuration(false), Optional.empty(), "kgpu: the time between device probes, at least 1s (default 5s)");
    /** NVIDIA's DRA driver: XIDs that never mark a GPU unhealthy, on top of the application errors. */
    static final Setting<Set<Long>> ADDITIONAL_XIDS_TO_IGNORE = Setting.of(List.of("additional-xids-to-ignore"),
            List.of("ADDITIONAL_XIDS_TO_IGNORE"), HealthChecks.XID_LIST, Set.of(),
            "XIDs that never mark a GPU unhealthy, added to DP_DISABLE_HEALTHCHECKS's (both kubelet APIs)");

    /** kgpu's settings of the node, and NVIDIA's DRA driver's it reads, besides NVIDIA's device plugin's. */
    public static final List<Setting<?>> SETTINGS = List.of(NvmlSettings.LIBRARY, PROC_ROOT, QUIET_PERIOD,
            RECOVERABLE_XIDS, CHECK_INTERVAL, ADDITIONAL_XIDS_TO_IGNORE);

    public NodeSettings {
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(healthCheckInterval, "healthCheckInterval");
        Objects.requireNonNull(nvml, "nvml");
        Objects.requireNonNull(procRoot, "procRoot");
    }

    /** The node's settings from NVIDIA's configuration and {@link #SETTINGS}, resolved with them. */
    public static NodeSettings of(DevicePluginConfig loaded, ConfigLoader.Resolved resolved) {
        HealthPolicy health = new HealthPolicy(loaded.healthChecks().ignoring(resolved.get(ADDITIONAL_XIDS_TO_IGNORE)),
                resolved.get(QUIET_PERIOD).orElse(HealthPolicy.DEFAULT_QUIET_PERIOD), resolved.get(RECOVERABLE_XIDS));
        return new NodeSettings(loaded.config().flags().failOnInitError(), health,
                resolved.get(CHECK_INTERVAL).orElse(DEFAULT_CHECK_INTERVAL),
                NvmlSettings.options(resolved, Path.of(loaded.config().flags().nvidiaDriverRoot())),
                Path.of(resolved.get(PROC_ROOT)));
    }

    /** A Go duration ({@code 90s}, {@code 5m}) of at least {@link #SHORTEST_INTERVAL}; blank means the default. */
    private static ValueType<Optional<Duration>> goDuration(boolean zeroAllowed) {
        return ValueType.optional(ValueType.of("Go duration", text -> {
            Duration value;
            try {
                value = GoDuration.parse(text.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("must be a Go duration such as 90s or 5m (" + e.getMessage() + ")");
            }
            if (zeroAllowed && value.isZero()) {
                return value;
            }
            if (value.compareTo(SHORTEST_INTERVAL) < 0) {
                throw new IllegalArgumentException("must be at least " + GoDuration.format(SHORTEST_INTERVAL)
                        + (zeroAllowed ? ", or 0 to turn it off" : "") + " (a shorter one would probe NVML in a near-busy loop)");
            }
            return value;
        }, GoDuration::format));
    }
}
