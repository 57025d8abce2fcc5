package dev.kgpu.exporter.nvml;

import dev.kgpu.exporter.collector.MetricsCollection;
import dev.kgpu.exporter.collector.NodeSample;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.config.HostnameLabel;
import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.counters.CountersFile;
import dev.kgpu.exporter.exposition.ExpositionFormat;
import dev.kgpu.exporter.exposition.ExpositionRenderer;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MemoryInfo;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.PerfPolicy;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.sim.prometheus.ExpositionParser.Family;
import dev.kgpu.sim.prometheus.ExpositionParser.Sample;
import dev.kgpu.sim.prometheus.ExpositionParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole NVML path, for every mock profile: the exposition parses, its names, types and help texts are
 * the counters file's, labels come in dcgm-exporter's order, and every value equals what NVML reports
 * through nvml-ffm (telemetry frozen so two reads agree).
 */
class ExpositionProfilesTest {

    private static MockNvml mock;

    @BeforeAll
    static void loadMock() {
        mock = MockNvml.load();
    }

    @AfterAll
    static void resetMock() {
        mock.reset();
    }

    /** Every row of the built-in file, the opt-in ones switched on, and dcgm-exporter 2.x's PCIe throughput rows. */
    static CounterSet allCounters() {
        try (var in = CountersFile.class.getResourceAsStream("default-counters.csv")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replaceAll("(?m)^#(DCGM_[A-Z0-9_]+,)", "$1")
                    + "DCGM_FI_DEV_PCIE_TX_THROUGHPUT, counter, Total number of bytes transmitted through PCIe TX (in KB) via NVML.\n"
                    + "DCGM_FI_DEV_PCIE_RX_THROUGHPUT, counter, Total number of bytes received through PCIe RX (in KB) via NVML.\n";
            return CountersFile.parse("all rows", text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rtx3060", "dgx-a100", "dgx-h100", "mig-mixed", "large-256"})
    void exposesWhatNvmlReports(String profile) {
        mock.useProfile(profile);
        mock.freezeTelemetry();
        CounterSet counters = allCounters();
        try (Nvml nvml = Nvml.open()) {
            MetricsCollection collection = MetricsCollection.forCounters(counters, new XidHistory(Duration.ofMinutes(10)),
                    Duration.ofMinutes(5), Duration.ofMinutes(5), Clock.systemUTC());
            List<Throwable> errors = new ArrayList<>();
            try (NodeSampleReader reader = new NodeSampleReader(nvml, collection.readings(), errors::add, Clock.systemUTC())) {
                collection.collect(reader.read()); // primes GPM samplers and the NVLink rate
                NodeSample sample = reader.read();
                String text = new String(new ExpositionRenderer(Optional.of(new HostnameLabel("Hostname", "node-a")), false)
                        .render(collection.collect(sample), ExpositionFormat.TEXT), StandardCharsets.UTF_8);
                Map<String, Family> families = ExpositionParser.parse(text);

                assertThat(errors).isEmpty();
                assertThat(families).isNotEmpty();
                checkFamilies(counters, families);
                checkLabels(counters, nvml, families);
                checkValues(nvml, families);
            }
        }
    }

    private static void checkFamilies(CounterSet counters, Map<String, Family> families) {
        for (Family family : families.values()) {
            Counter counter = counters.metric(family.name()).orElseThrow(
                    () -> new AssertionError(family.name() + " is not in the counters file"));
            assertThat(family.help()).as(family.name()).isEqualTo(counter.help());
            assertThat(family.type()).as(family.name()).isEqualTo(counter.type().word());
            assertThat(family.samples()).as(family.name()).isNotEmpty();
        }
        assertThat(families).containsKeys("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED",
                "DCGM_FI_DEV_XID_ERRORS", "DCGM_EXP_XID_ERRORS_COUNT", "DCGM_EXP_CLOCK_EVENTS_COUNT");
    }

    private static void checkLabels(CounterSet counters, Nvml nvml, Map<String, Family> families) {
        List<String> labelRows = counters.labels().stream().map(Counter::fieldName).sorted().toList();
        Map<String, GpuDevice> byUuid = new HashMap<>();
        nvml.devices().forEach(d -> byUuid.put(d.uuid(), d));
        for (Family family : families.values()) {
            for (Sample sample : family.samples()) {
                List<String> names = sample.labelNames();
                boolean mig = sample.labels().containsKey("GPU_I_ID");
                List<String> head = new ArrayList<>(List.of("gpu", "UUID", "pci_bus_id", "device", "modelName"));
                if (mig) {
                    head.addAll(List.of("GPU_I_PROFILE", "GPU_I_ID"));
                }
                head.add("Hostname");
                assertThat(names.subList(0, head.size())).as(family.name()).isEqualTo(head);
                List<String> rest = names.subList(head.size(), names.size());
                assertThat(rest).as(family.name()).isSorted();
                assertThat(rest.stream().filter(labelRows::contains).toList()).as(family.name())
                        .isEqualTo(labelRows.stream().filter(rest::contains).toList());
                GpuDevice gpu = byUuid.get(sample.label("UUID"));
                assertThat(gpu).as(sample.label("UUID")).isNotNull();
                assertThat(sample.label("gpu")).isEqualTo(Integer.toString(gpu.index()));
                assertThat(sample.label("device")).isEqualTo("nvidia" + gpu.index());
                assertThat(sample.label("pci_bus_id")).isEqualTo(gpu.pci().busId());
                assertThat(sample.label("modelName")).isEqualTo(gpu.name());
                assertThat(sample.label("Hostname")).isEqualTo("node-a");
                assertThat(sample.label("DCGM_FI_DRIVER_VERSION")).isEqualTo(nvml.driverVersion());
                assertThat(sample.label("DCGM_FI_NVML_VERSION")).isEqualTo(nvml.nvmlVersion());
                gpu.serial().ifPresent(serial -> assertThat(sample.label("DCGM_FI_DEV_SERIAL")).isEqualTo(serial));
                assertThat(Optional.ofNullable(sample.label("DCGM_FI_DEV_OEM_INFOROM_VER")))
                        .isEqualTo(gpu.inforomVersion(dev.kgpu.nvml.InforomObject.OEM));
                assertThat(Optional.ofNullable(sample.label("DCGM_FI_DEV_POWER_INFOROM_VER")))
                        .isEqualTo(gpu.inforomVersion(dev.kgpu.nvml.InforomObject.POWER));
            }
        }
    }

    /** What NVML says for one GPU-wide field, formatted as dcgm-exporter formats it. */
    private static Map<String, Function<GpuDevice, Optional<String>>> oracle() {
        Map<String, Function<GpuDevice, Optional<String>>> o = new HashMap<>();
        o.put("DCGM_FI_DEV_GPU_TEMP", d -> i(d.telemetry().gpuTemperatureCelsius()));
        o.put("DCGM_FI_DEV_MEMORY_TEMP", d -> i(d.telemetry().memoryTemperatureCelsius()));
        o.put("DCGM_FI_DEV_SM_CLOCK", d -> i(d.telemetry().smClockMhz()));
        o.put("DCGM_FI_DEV_MEM_CLOCK", d -> i(d.telemetry().memoryClockMhz()));
        o.put("DCGM_FI_DEV_POWER_USAGE", d -> d.telemetry().powerMilliwatts().isPresent()
                ? Optional.of(String.format(Locale.ROOT, "%f", d.telemetry().powerMilliwatts().getAsLong() / 1000.0))
                : Optional.empty());
        o.put("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", d -> l(d.telemetry().totalEnergyMillijoules()));
        o.put("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", d -> l(d.telemetry().pcieReplayCount()));
        o.put("DCGM_FI_DEV_ENC_UTIL", d -> i(d.telemetry().encoderUtilizationPercent()));
        o.put("DCGM_FI_DEV_DEC_UTIL", d -> i(d.telemetry().decoderUtilizationPercent()));
        o.put("DCGM_FI_DEV_GPU_UTIL", d -> d.telemetry().utilization().map(u -> Integer.toString(u.gpuPercent())));
        o.put("DCGM_FI_DEV_MEM_COPY_UTIL", d -> d.telemetry().utilization().map(u -> Integer.toString(u.memoryPercent())));
        o.put("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                d -> d.telemetry().remappedRows().map(r -> Integer.toString(r.uncorrectable())));
        o.put("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                d -> d.telemetry().remappedRows().map(r -> Integer.toString(r.correctable())));
        o.put("DCGM_FI_DEV_ROW_REMAP_FAILURE", d -> d.telemetry().remappedRows().map(r -> r.failed() ? "1" : "0"));
        o.put("DCGM_FI_DEV_POWER_VIOLATION", d -> l(d.violationNanos(PerfPolicy.POWER)));
        o.put("DCGM_FI_DEV_THERMAL_VIOLATION", d -> l(d.violationNanos(PerfPolicy.THERMAL)));
        o.put("DCGM_FI_DEV_RELIABILITY_VIOLATION", d -> l(d.violationNanos(PerfPolicy.RELIABILITY)));
        o.put("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", d -> l(d.eccErrors(dev.kgpu.nvml.MemoryErrorType.CORRECTED,
                dev.kgpu.nvml.EccCounterType.AGGREGATE)));
        o.put("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", d -> l(d.eccErrors(dev.kgpu.nvml.MemoryErrorType.UNCORRECTED,
                dev.kgpu.nvml.EccCounterType.VOLATILE)));
        o.put("DCGM_FI_DEV_RETIRED_DBE", d -> l(d.retiredPages(dev.kgpu.nvml.PageRetirementCause.DOUBLE_BIT_ECC_ERROR)));
        o.put("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
                d -> d.nvLinkErrorTotals().map(t -> Long.toString(t.crcFlitErrors())));
        o.put("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
                d -> d.nvLinkErrorTotals().map(t -> Long.toString(t.recoveryErrors())));
        o.put("DCGM_FI_DEV_VGPU_LICENSE_STATUS", d -> d.vgpuLicenseState().map(s -> s.licensed() ? "1" : "0"));
        o.put("DCGM_FI_DEV_PCIE_TX_THROUGHPUT", d -> d.pcieThroughput().map(p -> Long.toString(p.txKBps())));
        o.put("DCGM_FI_DEV_PCIE_RX_THROUGHPUT", d -> d.pcieThroughput().map(p -> Long.toString(p.rxKBps())));
        return o;
    }

    private static final List<String> UTILISATION = List.of("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL",
            "DCGM_FI_DEV_ENC_UTIL", "DCGM_FI_DEV_DEC_UTIL");

    private static void checkValues(Nvml nvml, Map<String, Family> families) {
        Map<String, Function<GpuDevice, Optional<String>>> oracle = oracle();
        for (GpuDevice gpu : nvml.devices()) {
            List<MigDevice> migs = gpu.migMode().map(m -> m.currentEnabled()).orElse(false) ? gpu.migDevices() : List.of();
            long entities = migs.isEmpty() ? 1 : migs.stream().mapToInt(MigDevice::gpuInstanceId).distinct().count();
            oracle.forEach((field, read) -> {
                List<Sample> samples = samplesOf(families, field, gpu.uuid());
                Optional<String> expected = read.apply(gpu);
                if (!migs.isEmpty() && UTILISATION.contains(field)) {
                    assertThat(samples).as(field + " on MIG GPU " + gpu.index()).isEmpty();
                } else if (expected.isEmpty()) {
                    assertThat(samples).as(field + " (not supported) on GPU " + gpu.index()).isEmpty();
                } else {
                    assertThat(samples).as(field + " on GPU " + gpu.index()).hasSize((int) entities)
                            .allSatisfy(s -> assertThat(s.value()).as(field + " on GPU " + gpu.index())
                                    .isEqualTo(expected.get()));
                }
            });
            if (migs.isEmpty()) {
                MemoryInfo memory = gpu.memory();
                assertThat(samplesOf(families, "DCGM_FI_DEV_FB_USED", gpu.uuid())).singleElement()
                        .satisfies(s -> assertThat(s.value()).isEqualTo(Long.toString(memory.usedMiB())));
                assertThat(samplesOf(families, "DCGM_FI_DEV_FB_FREE", gpu.uuid())).singleElement()
                        .satisfies(s -> assertThat(s.value()).isEqualTo(Long.toString(memory.freeMiB())));
                assertThat(samplesOf(families, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", gpu.uuid()))
                        .as("profiling on GPU " + gpu.index()).hasSize(gpu.gpmSupported() ? 1 : 0);
            } else {
                for (MigDevice mig : migs) {
                    List<Sample> fb = samplesOf(families, "DCGM_FI_DEV_FB_USED", gpu.uuid()).stream()
                            .filter(s -> s.label("GPU_I_ID").equals(Integer.toString(mig.gpuInstanceId()))).toList();
                    assertThat(fb).as("FB of GPU instance " + mig.gpuInstanceId() + " of GPU " + gpu.index())
                            .singleElement().satisfies(s -> {
                                assertThat(s.value()).isEqualTo(Long.toString(mig.memory().usedMiB()));
                                assertThat(s.label("GPU_I_PROFILE")).isEqualTo(
                                        mig.profile().name().replaceFirst("^[0-9]+c\\.", ""));
                            });
                }
            }
            assertThat(samplesOf(families, "DCGM_FI_DEV_XID_ERRORS", gpu.uuid()))
                    .allSatisfy(s -> assertThat(s.labels()).containsEntry("err_code", "0").containsEntry("err_msg", "No Error"));
        }
    }

    private static List<Sample> samplesOf(Map<String, Family> families, String field, String uuid) {
        Family family = families.get(field);
        if (family == null) {
            return List.of();
        }
        return family.samples().stream().filter(s -> uuid.equals(s.label("UUID"))).toList();
    }

    private static Optional<String> i(OptionalInt value) {
        return value.isPresent() ? Optional.of(Integer.toString(value.getAsInt())) : Optional.empty();
    }

    private static Optional<String> l(OptionalLong value) {
        return value.isPresent() ? Optional.of(Long.toString(value.getAsLong())) : Optional.empty();
    }

}
