package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.MetricFamily;
import dev.kgpu.exporter.metrics.MetricsBuilder;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Turns one {@link NodeSample} into metric families: builds the collectors the counters file asks for
 * (one per family group, as dcgm-exporter's collector package does) and runs each over the sample.
 *
 * <p>Not thread-safe: the collection thread owns it (some collectors keep state between collections).
 */
public final class MetricsCollection {

    private final CounterSet counters;
    private final List<Collector> collectors;

    public MetricsCollection(CounterSet counters, List<Collector> collectors) {
        this.counters = counters;
        this.collectors = List.copyOf(collectors);
    }

    /**
     * The collectors for {@code counters}.
     *
     * @param xids              the XID errors NVML reported
     * @param xidWindow         {@code DCGM_EXP_XID_ERRORS_COUNT}'s window
     * @param clockEventsWindow {@code DCGM_EXP_CLOCK_EVENTS_COUNT}'s window
     * @param clock             the time windows are measured against
     */
    public static MetricsCollection forCounters(CounterSet counters, XidHistory xids, Duration xidWindow,
                                                Duration clockEventsWindow, InstantSource clock) {
        List<Collector> collectors = new ArrayList<>();
        addIfActive(collectors, new ClocksCollector(counters));
        addIfActive(collectors, new TemperatureCollector(counters));
        addIfActive(collectors, new PowerCollector(counters));
        addIfActive(collectors, new PcieCollector(counters));
        addIfActive(collectors, new PcieThroughputCollector(counters));
        addIfActive(collectors, new UtilizationCollector(counters));
        addIfActive(collectors, new RowRemapCollector(counters));
        addIfActive(collectors, new VgpuLicenseCollector(counters));
        addIfActive(collectors, new ViolationCollector(counters));
        addIfActive(collectors, new EccCollector(counters));
        addIfActive(collectors, new RetiredPagesCollector(counters));
        FramebufferCollector framebuffer = new FramebufferCollector(counters);
        if (framebuffer.active()) {
            collectors.add(framebuffer);
        }
        NvLinkCollector nvLink = new NvLinkCollector(counters);
        if (nvLink.active()) {
            collectors.add(nvLink);
        }
        NvLinkLinkBandwidthCollector links = new NvLinkLinkBandwidthCollector(counters);
        if (links.active()) {
            collectors.add(links);
        }
        ProfilingCollector profiling = new ProfilingCollector(counters);
        if (profiling.active()) {
            collectors.add(profiling);
        }
        counters.reading("DCGM_FI_DEV_XID_ERRORS").forEach(c -> collectors.add(new XidCollector(c, xids)));
        counters.reading("DCGM_EXP_XID_ERRORS_COUNT")
                .forEach(c -> collectors.add(new XidCountCollector(c, xids, xidWindow, clock)));
        counters.reading("DCGM_EXP_CLOCK_EVENTS_COUNT")
                .forEach(c -> collectors.add(new ClockEventsCollector(c, clockEventsWindow, clock)));
        counters.reading("DCGM_EXP_P2P_STATUS").forEach(c -> collectors.add(new P2pStatusCollector(c)));
        return new MetricsCollection(counters, collectors);
    }

    private static void addIfActive(List<Collector> collectors, GpuFieldCollector collector) {
        if (collector.active()) {
            collectors.add(collector);
        }
    }

    /** The NVML reads every collector together needs. */
    public Set<Reading> readings() {
        EnumSet<Reading> readings = EnumSet.noneOf(Reading.class);
        for (Collector collector : collectors) {
            readings.addAll(collector.readings());
        }
        for (Counter label : counters.labels()) {
            switch (label.field()) {
                case "DCGM_FI_DEV_SERIAL", "DCGM_FI_DEV_VBIOS_VERSION", "DCGM_FI_DEV_INFOROM_IMAGE_VER" ->
                        readings.add(Reading.IDENTITY_STRINGS);
                case "DCGM_FI_DEV_OEM_INFOROM_VER", "DCGM_FI_DEV_ECC_INFOROM_VER", "DCGM_FI_DEV_POWER_INFOROM_VER" ->
                        readings.add(Reading.INFOROM_VERSIONS);
                default -> {
                }
            }
        }
        return readings;
    }

    public List<MetricFamily> collect(NodeSample node) {
        LabelRows labelRows = new LabelRows(counters.labels(), node);
        MetricsBuilder out = new MetricsBuilder(counters.metrics(), labelRows::of);
        for (Collector collector : collectors) {
            collector.collect(node, out);
        }
        return out.build();
    }
}
