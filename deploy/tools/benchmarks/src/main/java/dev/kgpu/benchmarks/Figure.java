package dev.kgpu.benchmarks;

import java.util.Locale;
import java.util.Optional;

/**
 * One figure the benchmark reports, with its unit and, where issue 20 sets one (issue 15's where 20 sets none: the
 * discovery daemon), its target (an upper bound). The verdict column judges the first subject, the images measured.
 * Start-up figures are taken in every run and reported as the median (and range) over the runs; the soak's once.
 */
enum Figure {
    PLUGIN_READY("plugin_start_to_registered_s", "plugin: start → registered, devices listed at the kubelet", "s", 0.1, 2),
    PLUGIN_CPU_READY("plugin_cpu_to_registered_s", "plugin: CPU time to registered", "s", null, 2),
    PLUGIN_RSS_READY("plugin_rss_at_registered_mib", "plugin: RSS at registered", "MiB", 40.0, 0),
    XID("plugin_first_xid_to_unhealthy_ms", "plugin: first XID → Unhealthy at the kubelet (1 s after registered)", "ms", 10.0, 1),
    ALLOCATE_P50("allocate_first_2000_p50_ms", "plugin: Allocate p50, first 2,000 calls", "ms", 0.3, 3),
    ALLOCATE_P99("allocate_first_2000_p99_ms", "plugin: Allocate p99, first 2,000 calls", "ms", 2.0, 2),
    ALLOCATE_MAX("allocate_first_2000_max_ms", "plugin: Allocate max, first 2,000 calls", "ms", null, 1),
    PLUGIN_RSS_ALLOCATED("plugin_rss_after_2000_allocates_mib", "plugin: RSS after those 2,000 Allocates", "MiB", 40.0, 0),
    ONESHOT_LABELS("discovery_oneshot_exec_to_labels_s", "discovery one-shot: exec → labels written", "s", 0.3, 2),
    ONESHOT_EXIT("discovery_oneshot_exec_to_exit_s", "discovery one-shot: exec → exited", "s", null, 2),
    ONESHOT_CPU("discovery_oneshot_cpu_s", "discovery one-shot: CPU time to labels written", "s", null, 2),
    ONESHOT_PEAK_RSS("discovery_oneshot_peak_rss_mib", "discovery one-shot: peak RSS", "MiB", 40.0, 0),
    DAEMON_READY("discovery_daemon_start_to_labels_s", "discovery daemon: start → labels written", "s", 0.5, 2),
    DAEMON_CPU_READY("discovery_daemon_cpu_to_labels_s", "discovery daemon: CPU time to labels written", "s", null, 2),
    DAEMON_RSS_READY("discovery_daemon_rss_at_labels_mib", "discovery daemon: RSS at labels written", "MiB", 64.0, 0),
    EXPORTER_READY("exporter_start_to_ready_s", "exporter: start → ready (first collection served)", "s", 0.2, 2),
    EXPORTER_CPU_READY("exporter_cpu_to_ready_s", "exporter: CPU time to ready", "s", null, 2),
    EXPORTER_RSS_READY("exporter_rss_at_ready_mib", "exporter: RSS at ready", "MiB", 48.0, 0),
    VALIDATOR_DRIVER_EXIT("validator_driver_oneshot_exec_to_exit_s", "validator driver one-shot: exec → exited, driver-ready written",
            "s", 0.3, 2),
    VALIDATOR_DRIVER_CPU("validator_driver_oneshot_cpu_s", "validator driver one-shot: CPU time, last read before its exit", "s", null, 2),
    VALIDATOR_DRIVER_PEAK_RSS("validator_driver_oneshot_peak_rss_mib", "validator driver one-shot: peak RSS", "MiB", null, 0),
    SOAK_PLUGIN_RSS("soak_plugin_rss_mib", "plugin: RSS after the soak's Allocates", "MiB", 40.0, 0),
    SOAK_PLUGIN_CPU("soak_plugin_cpu_s", "plugin: CPU time over the soak", "s", null, 1),
    SOAK_ALLOCATE_P50("soak_allocate_p50_ms", "plugin: Allocate p50 over the soak", "ms", null, 3),
    SOAK_ALLOCATE_P99("soak_allocate_p99_ms", "plugin: Allocate p99 over the soak", "ms", null, 2),
    SOAK_DAEMON_RSS("soak_discovery_daemon_rss_mib", "discovery daemon: RSS after the soak (a pass a minute)", "MiB", 64.0, 0),
    SOAK_DAEMON_CPU("soak_discovery_daemon_cpu_s", "discovery daemon: CPU time over the soak", "s", null, 1),
    SOAK_EXPORTER_RSS("soak_exporter_rss_mib", "exporter: RSS after the soak's scrapes", "MiB", 48.0, 0),
    SOAK_EXPORTER_CPU("soak_exporter_cpu_s", "exporter: CPU time over the soak", "s", null, 1),
    SOAK_SCRAPE_P50("soak_scrape_p50_ms", "exporter: /metrics p50 over the soak", "ms", null, 2),
    SOAK_SCRAPE_P99("soak_scrape_p99_ms", "exporter: /metrics p99 over the soak", "ms", null, 2);

    private final String key;
    private final String label;
    private final String unit;
    private final Double target;
    private final int decimals;

    Figure(String key, String label, String unit, Double target, int decimals) {
        this.key = key;
        this.label = label;
        this.unit = unit;
        this.target = target;
        this.decimals = decimals;
    }

    String key() {
        return key;
    }

    String label() {
        return label;
    }

    String unit() {
        return unit;
    }

    Optional<Double> target() {
        return Optional.ofNullable(target);
    }

    boolean soak() {
        return name().startsWith("SOAK_");
    }

    String format(double value) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    String targetText() {
        return target == null ? "" : "≤ " + java.math.BigDecimal.valueOf(target).stripTrailingZeros().toPlainString() + " " + unit;
    }
}
