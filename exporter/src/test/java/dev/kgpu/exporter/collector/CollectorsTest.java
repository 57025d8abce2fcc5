package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.counters.CountersFile;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricFamily;
import dev.kgpu.exporter.metrics.MetricRow;
import dev.kgpu.nvml.Brand;
import dev.kgpu.nvml.ClockEventReason;
import dev.kgpu.nvml.GpmMetrics;
import dev.kgpu.nvml.GpuTelemetry;
import dev.kgpu.nvml.InforomObject;
import dev.kgpu.nvml.MemoryInfo;
import dev.kgpu.nvml.NvLinkTraffic;
import dev.kgpu.nvml.P2pStatus;
import dev.kgpu.nvml.PcieThroughput;
import dev.kgpu.nvml.Utilization;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The collectors over hand-made samples (the NVML path is covered by ExpositionProfilesTest). */
class CollectorsTest {

    private static final Entity GPU0 = Entity.gpu(0, "GPU-aaaa", "00000000:07:00.0", "NVIDIA H100 80GB HBM3");
    private static final Entity GPU1 = Entity.gpu(1, "GPU-bbbb", "00000000:0F:00.0", "NVIDIA A100-SXM4-80GB");
    private static final long MIB = 1024 * 1024;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final XidHistory xids = new XidHistory(Duration.ofMinutes(10));

    private static CounterSet counters() {
        String all = new String(readDefault()).replaceAll("(?m)^#(DCGM_[A-Z0-9_]+,)", "$1");
        return CountersFile.parse("all", all);
    }

    private static byte[] readDefault() {
        try (var in = CountersFile.class.getResourceAsStream("default-counters.csv")) {
            return in.readAllBytes();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private GpuTelemetry telemetry(long nvLinkKiB, Set<ClockEventReason> reasons, boolean utilization) {
        return new GpuTelemetry(now.get(), OptionalInt.of(41), OptionalInt.empty(), OptionalLong.of(71_234),
                OptionalLong.of(123_456_789), OptionalInt.of(1980), OptionalInt.of(2619),
                utilization ? Optional.of(new Utilization(87, 20)) : Optional.empty(), OptionalInt.of(0),
                OptionalInt.of(3), OptionalLong.of(5),
                Optional.of(new MemoryInfo(81_559 * MIB, 80_000 * MIB, 1_000 * MIB, OptionalLong.of(559 * MIB))),
                OptionalLong.of(nvLinkKiB), Optional.empty(), Optional.of(reasons));
    }

    private GpuSample gpu0(long nvLinkKiB, Set<ClockEventReason> reasons) {
        GpmMetrics gpm = new GpmMetrics(Duration.ofSeconds(1), 0.5, 0.4, 0.3, 0.25, Double.NaN, 0, 0, 0, 1048576, 2048);
        return new GpuSample(GPU0, Brand.NVIDIA, Optional.of("1650"), Optional.empty(), Optional.empty(),
                Optional.of(telemetry(nvLinkKiB, reasons, true)), true, Optional.of(gpm), Optional.empty(),
                OptionalLong.empty(), OptionalLong.empty(), Optional.empty(), Map.of(), Optional.empty(),
                Optional.empty(), List.of());
    }

    private GpuSample migGpu1() {
        GpmMetrics gpm = new GpmMetrics(Duration.ofSeconds(1), 0.125, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        return new GpuSample(GPU1, Brand.NVIDIA, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(telemetry(0, Set.of(), true)), true, Optional.empty(), Optional.empty(),
                OptionalLong.empty(), OptionalLong.empty(), Optional.empty(), Map.of(), Optional.empty(),
                Optional.empty(), List.of(
                new GpuInstanceSample(1, "3g.40gb", List.of("MIG-1"),
                        Optional.of(new MemoryInfo(40_192 * MIB, 40_000 * MIB, 192 * MIB, OptionalLong.empty())),
                        Optional.of(gpm)),
                new GpuInstanceSample(2, "4g.40gb", List.of("MIG-2", "MIG-3"),
                        Optional.of(new MemoryInfo(40_192 * MIB, 40_192 * MIB, 0, OptionalLong.empty())),
                        Optional.empty())));
    }

    private NodeSample node(GpuSample... gpus) {
        return new NodeSample(now.get(), "550.54.15", "12.550.54.15", List.of(gpus));
    }

    private static List<MetricRow> rows(List<MetricFamily> families, String name) {
        return families.stream().filter(f -> f.counter().fieldName().equals(name)).findFirst()
                .map(MetricFamily::rows).orElse(List.of());
    }

    @Test
    void gpuFieldsCarryDcgmUnitsAndGpuInstancesCarryTheirParentsValuesButNoUtilisation() {
        MetricsCollection collection = MetricsCollection.forCounters(counters(), xids, Duration.ofMinutes(5),
                Duration.ofMinutes(5), now::get);

        List<MetricFamily> families = collection.collect(node(gpu0(0, Set.of()), migGpu1()));

        assertThat(rows(families, "DCGM_FI_DEV_POWER_USAGE")).extracting(MetricRow::value)
                .containsExactly("71.234000", "71.234000", "71.234000");
        assertThat(rows(families, "DCGM_FI_DEV_SM_CLOCK")).extracting(r -> r.entity().gpuInstance().map(Entity.GpuInstance::id))
                .containsExactly(Optional.empty(), Optional.of(1), Optional.of(2));
        assertThat(rows(families, "DCGM_FI_DEV_GPU_UTIL")).extracting(MetricRow::entity).containsExactly(GPU0);
        assertThat(rows(families, "DCGM_FI_DEV_DEC_UTIL")).extracting(MetricRow::value).containsExactly("3");
        assertThat(rows(families, "DCGM_FI_DEV_FB_USED")).extracting(MetricRow::value).containsExactly("1000", "192", "0");
        assertThat(rows(families, "DCGM_FI_DEV_FB_RESERVED")).extracting(MetricRow::value).containsExactly("559");
        assertThat(rows(families, "DCGM_FI_DEV_MEMORY_TEMP")).isEmpty();
        assertThat(rows(families, "DCGM_FI_PROF_GR_ENGINE_ACTIVE")).extracting(MetricRow::value)
                .containsExactly("0.500000", "0.125000");
        assertThat(rows(families, "DCGM_FI_PROF_DRAM_ACTIVE")).extracting(MetricRow::entity).containsExactly(
                GPU1.instance(1, "3g.40gb"));
        assertThat(rows(families, "DCGM_FI_PROF_PCIE_TX_BYTES")).extracting(MetricRow::value).containsExactly("1048576", "0");
        assertThat(rows(families, "DCGM_FI_DEV_XID_ERRORS").getFirst().attributes())
                .containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("err_code", "0", "err_msg", "No Error")));
        assertThat(rows(families, "DCGM_FI_DEV_POWER_USAGE").getFirst().labels()).containsExactlyEntriesOf(
                new java.util.TreeMap<>(Map.of("DCGM_FI_DRIVER_VERSION", "550.54.15", "DCGM_FI_NVML_VERSION",
                        "12.550.54.15", "DCGM_FI_DEV_BRAND", "NVIDIA", "DCGM_FI_DEV_SERIAL", "1650")));
        assertThat(families).extracting(f -> f.counter().fieldName()).doesNotContain("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL");
    }

    @Test
    void xidsCountWithinTheirWindowAndTheLastOneStays() {
        MetricsCollection collection = MetricsCollection.forCounters(counters(), xids, Duration.ofMinutes(5),
                Duration.ofMinutes(5), now::get);
        xids.record("GPU-aaaa", 79, now.get());
        now.set(now.get().plusSeconds(60));
        xids.record("GPU-aaaa", 13, now.get());
        xids.record("GPU-aaaa", 13, now.get());

        List<MetricFamily> first = collection.collect(node(gpu0(0, Set.of())));
        assertThat(rows(first, "DCGM_EXP_XID_ERRORS_COUNT")).extracting(r -> r.labels().get("xid") + "=" + r.value())
                .containsExactly("13=2", "79=1");
        assertThat(rows(first, "DCGM_EXP_XID_ERRORS_COUNT").getFirst().labels())
                .containsEntry("window_size_in_ms", "300000");
        MetricRow last = rows(first, "DCGM_FI_DEV_XID_ERRORS").getFirst();
        assertThat(last.value()).isEqualTo("13");
        assertThat(last.attributes()).containsEntry("err_msg", "Graphics Engine Exception");

        now.set(now.get().plus(Duration.ofMinutes(5)));
        List<MetricFamily> later = collection.collect(node(gpu0(0, Set.of())));
        assertThat(rows(later, "DCGM_EXP_XID_ERRORS_COUNT")).singleElement().satisfies(r -> {
            assertThat(r.value()).isEqualTo("0");
            assertThat(r.labels()).doesNotContainKey("xid").containsEntry("window_size_in_ms", "300000");
        });
        assertThat(rows(later, "DCGM_FI_DEV_XID_ERRORS").getFirst().value()).isEqualTo("13");
    }

    @Test
    void clockEventsCountCollectionsPerReasonWithinTheWindow() {
        MetricsCollection collection = MetricsCollection.forCounters(counters(), xids, Duration.ofMinutes(5),
                Duration.ofSeconds(90), now::get);
        collection.collect(node(gpu0(0, Set.of(ClockEventReason.GPU_IDLE, ClockEventReason.SW_THERMAL))));
        now.set(now.get().plusSeconds(60));
        List<MetricFamily> families = collection.collect(node(gpu0(0, Set.of(ClockEventReason.SW_THERMAL))));

        assertThat(rows(families, "DCGM_EXP_CLOCK_EVENTS_COUNT"))
                .extracting(r -> r.labels().get("clock_event") + "=" + r.value() + "@" + r.labels().get("window_size_in_ms"))
                .containsExactly("gpu_idle=1@90000", "sw_thermal=2@90000");

        now.set(now.get().plusSeconds(60));
        families = collection.collect(node(gpu0(0, Set.of())));
        assertThat(rows(families, "DCGM_EXP_CLOCK_EVENTS_COUNT")).extracting(r -> r.labels().get("clock_event") + "=" + r.value())
                .containsExactly("sw_thermal=1");
    }

    @Test
    void nvLinkBandwidthIsDcgmsRateBetweenTwoCollections() {
        MetricsCollection collection = MetricsCollection.forCounters(counters(), xids, Duration.ofMinutes(5),
                Duration.ofMinutes(5), now::get);
        assertThat(rows(collection.collect(node(gpu0(1_000_000, Set.of()))), "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"))
                .extracting(MetricRow::value).containsExactly("0");
        now.set(now.get().plusSeconds(2));
        assertThat(rows(collection.collect(node(gpu0(5_000_000, Set.of()))), "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"))
                .extracting(MetricRow::value).containsExactly("2000");
    }

    private GpuSample withRareReads(GpuSample base, long link0KiB) {
        return new GpuSample(base.gpu(), base.brand(), base.serial(), base.vbiosVersion(), base.inforomImage(),
                base.telemetry(), base.gpmSupported(), base.gpm(), base.ecc(), base.retiredSbe(), base.retiredDbe(),
                base.retiredPending(), base.violationsNs(), base.nvLinkErrors(), base.vgpuLicense(), base.gpuInstances(),
                Map.of(InforomObject.OEM, "2.1", InforomObject.ECC, "7.16"), Optional.of(new PcieThroughput(1200, 2500)),
                List.of(new NvLinkTraffic(0, link0KiB, link0KiB), new NvLinkTraffic(1, 0, 0)),
                Map.of(1, P2pStatus.OK, 2, P2pStatus.NOT_SUPPORTED));
    }

    @Test
    void twoPointXRowsInfoRomLabelsPerLinkBandwidthAndPeerToPeerStatus() {
        CounterSet set = CountersFile.parse("f", """
                DCGM_FI_DEV_PCIE_TX_THROUGHPUT, counter, Total number of bytes transmitted through PCIe TX (in KB) via NVML.
                dcgm_pcie_rx_throughput, counter, Total number of bytes received through PCIe RX (in KB) via NVML.
                DCGM_FI_DEV_NVLINK_BANDWIDTH_L0, counter, The number of bytes of active NVLink rx or tx data.
                DCGM_FI_DEV_NVLINK_BANDWIDTH_L5, counter, Link 5 (this GPU has two links).
                DCGM_EXP_P2P_STATUS, counter, P2P NvLink status
                DCGM_FI_DEV_OEM_INFOROM_VER, label, OEM inforom version
                DCGM_FI_DEV_POWER_INFOROM_VER, label, Power management object inforom version
                """);
        MetricsCollection collection = MetricsCollection.forCounters(set, xids, Duration.ofMinutes(5),
                Duration.ofMinutes(5), now::get);
        assertThat(collection.readings()).containsExactlyInAnyOrder(Reading.PCIE_THROUGHPUT, Reading.NVLINK_TRAFFIC,
                Reading.P2P_STATUS, Reading.INFOROM_VERSIONS);

        assertThat(rows(collection.collect(node(withRareReads(gpu0(0, Set.of()), 1_000_000))),
                "DCGM_FI_DEV_NVLINK_BANDWIDTH_L0")).extracting(MetricRow::value).containsExactly("0");
        now.set(now.get().plusSeconds(2));
        List<MetricFamily> families = collection.collect(node(withRareReads(gpu0(0, Set.of()), 3_000_000)));

        // (2 * 3,000,000 - 2 * 1,000,000) KiB over 2 s, / 1000
        assertThat(rows(families, "DCGM_FI_DEV_NVLINK_BANDWIDTH_L0")).extracting(MetricRow::value).containsExactly("2000");
        assertThat(rows(families, "DCGM_FI_DEV_NVLINK_BANDWIDTH_L5")).isEmpty();
        assertThat(rows(families, "DCGM_FI_DEV_PCIE_TX_THROUGHPUT")).extracting(MetricRow::value).containsExactly("1200");
        assertThat(rows(families, "dcgm_pcie_rx_throughput")).extracting(MetricRow::value).containsExactly("2500");
        assertThat(rows(families, "DCGM_EXP_P2P_STATUS")).extracting(r -> r.labels().get("peer_gpu") + " "
                + r.labels().get("link_status") + " " + r.value()).containsExactly("1 OK 0", "2 NotSupported 5");
        assertThat(rows(families, "DCGM_FI_DEV_PCIE_TX_THROUGHPUT").getFirst().labels())
                .containsEntry("DCGM_FI_DEV_OEM_INFOROM_VER", "2.1").doesNotContainKey("DCGM_FI_DEV_POWER_INFOROM_VER");
    }

    @Test
    void readingsFollowTheCountersFile() {
        assertThat(MetricsCollection.forCounters(CountersFile.readBuiltIn("default-counters.csv"), xids,
                Duration.ofMinutes(5), Duration.ofMinutes(5), now::get).readings())
                .containsExactlyInAnyOrder(Reading.TELEMETRY, Reading.GPM, Reading.VGPU_LICENSE);
        assertThat(MetricsCollection.forCounters(counters(), xids, Duration.ofMinutes(5), Duration.ofMinutes(5),
                now::get).readings()).containsExactlyInAnyOrderElementsOf(java.util.EnumSet.complementOf(
                java.util.EnumSet.of(Reading.PCIE_THROUGHPUT))); // dcgm-exporter 2.x's rows, not in its 4.x file
    }
}
