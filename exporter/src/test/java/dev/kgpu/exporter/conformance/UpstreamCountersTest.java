package dev.kgpu.exporter.conformance;

import dev.kgpu.exporter.collector.MetricsCollection;
import dev.kgpu.exporter.collector.NodeSample;
import dev.kgpu.exporter.collector.Reading;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.config.HostnameLabel;
import dev.kgpu.exporter.conformance.UpstreamFiles.CountersCsv;
import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.counters.CountersFile;
import dev.kgpu.exporter.counters.ServedFields;
import dev.kgpu.exporter.exposition.ExpositionFormat;
import dev.kgpu.exporter.exposition.ExpositionRenderer;
import dev.kgpu.exporter.nvml.NodeSampleReader;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.sim.prometheus.ExpositionParser.Family;
import dev.kgpu.sim.prometheus.ExpositionParser.Sample;
import dev.kgpu.sim.prometheus.ExpositionParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.kgpu.nvml.mock.MockProfile.value;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every counters CSV dcgm-exporter and gpu-operator shipped (see {@link UpstreamFiles}), as shipped and with
 * its opt-in rows switched on, through the whole NVML path of every mock profile: each file is accepted as
 * dcgm-exporter accepts it; each row kgpu serves has, for each GPU, a series exactly where the simulated
 * GPU has the value's NVML source, with the file's TYPE and help text; each label row is on the series of
 * every GPU that has it; each row kgpu does not serve is one the exporter's README names with its reason.
 */
class UpstreamCountersTest {

    /** The profiles with distinct GPUs (large-256 is dgx-h100's GPU 256 times). */
    private static final List<String> PROFILES = List.of("rtx3060", "dgx-a100", "dgx-h100", "mig-mixed", "h100-mig");

    private static MockNvml mock;

    @BeforeAll
    static void loadMock() {
        mock = MockNvml.load();
    }

    @AfterAll
    static void resetMock() {
        mock.reset();
    }

    /** Each file as shipped, then each with its opt-in rows on, without repeating a text already listed. */
    static List<CountersCsv> variants() {
        Map<String, CountersCsv> byText = new LinkedHashMap<>();
        for (CountersCsv file : UpstreamFiles.countersFiles()) {
            byText.putIfAbsent(file.text(), file);
        }
        for (CountersCsv file : UpstreamFiles.countersFiles()) {
            CountersCsv optIn = file.withOptInRows();
            byText.putIfAbsent(optIn.text(), optIn);
        }
        return List.copyOf(byText.values());
    }

    @Test
    void everyShippedFileIsAcceptedAndEveryRowNotServedIsDocumented() throws Exception {
        List<CountersCsv> files = UpstreamFiles.countersFiles();
        assertThat(files).as("files listed in ORIGINS.tsv").hasSizeGreaterThanOrEqualTo(35);
        String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
        Map<String, int[]> totals = new TreeMap<>();
        Set<String> fields = new LinkedHashSet<>();
        Set<String> notServed = new LinkedHashSet<>();
        for (CountersCsv file : files) {
            for (CountersCsv variant : List.of(file, file.withOptInRows())) {
                CounterSet set = CountersFile.parse(variant.name(), variant.text());
                String kind = variant == file ? "as shipped" : "opt-in rows on";
                int[] t = totals.computeIfAbsent(kind, k -> new int[4]);
                t[0] += set.rows();
                t[1] += set.metrics().size() + set.labels().size();
                t[2] += set.notServed().size();
                t[3] += set.duplicates().size();
                set.metrics().forEach(c -> fields.add(c.fieldName()));
                set.labels().forEach(c -> fields.add(c.fieldName()));
                set.notServed().forEach(c -> {
                    fields.add(c.fieldName());
                    notServed.add(c.fieldName());
                });
            }
        }
        totals.forEach((kind, t) -> System.out.printf("upstream counters files, %s: %d rows, %d served, %d not served,"
                + " %d repeated names%n", kind, t[0], t[1], t[2], t[3]));
        System.out.printf("upstream counters files: %d distinct names, not served: %s%n", fields.size(), notServed);
        assertThat(notServed).as("rows kgpu does not serve").allSatisfy(name ->
                assertThat(readme).as("exporter/README.md names %s with its reason", name).contains("`" + name + "`"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rtx3060", "dgx-a100", "dgx-h100", "mig-mixed", "h100-mig"})
    void servesEveryRowWhereTheGpuHasItsSource(String profileName) {
        assertThat(PROFILES).contains(profileName);
        mock.useProfile(profileName);
        mock.freezeTelemetry();
        MockProfile profile = MockNvml.profile(profileName);
        Clock clock = Clock.systemUTC();
        try (Nvml nvml = Nvml.open()) {
            List<Throwable> errors = new ArrayList<>();
            NodeSample first;
            NodeSample second;
            try (NodeSampleReader reader = new NodeSampleReader(nvml, EnumSet.allOf(Reading.class), errors::add, clock)) {
                first = reader.read();  // GPM needs two samples, NVLink rates two readings
                second = reader.read();
            }
            assertThat(errors).isEmpty();
            List<GpuDevice> gpus = nvml.devices();
            ExpositionRenderer renderer = new ExpositionRenderer(Optional.of(new HostnameLabel("Hostname", "node")), false);
            int families = 0;
            for (CountersCsv file : variants()) {
                CounterSet set = CountersFile.parse(file.name(), file.text());
                MetricsCollection collection = MetricsCollection.forCounters(set, new XidHistory(Duration.ofMinutes(10)),
                        Duration.ofMinutes(5), Duration.ofMinutes(5), clock);
                collection.collect(first);
                Map<String, Family> exposed = ExpositionParser.parse(new String(renderer.render(
                        collection.collect(second), ExpositionFormat.TEXT), StandardCharsets.UTF_8));
                for (Counter counter : set.metrics()) {
                    Family family = exposed.get(counter.fieldName());
                    for (int i = 0; i < gpus.size(); i++) {
                        String uuid = gpus.get(i).uuid();
                        boolean has = family != null && family.samples().stream().anyMatch(s -> uuid.equals(uuidOf(s)));
                        assertThat(has).as("%s: %s on %s GPU %d", file, counter.fieldName(), profileName, i)
                                .isEqualTo(hasSource(counter.field(), profile, i, gpus.size()));
                    }
                    if (family != null) {
                        families++;
                        assertThat(family.type()).as("%s: TYPE of %s", file, counter.fieldName()).isEqualTo(counter.type().word());
                        assertThat(family.help()).as("%s: HELP of %s", file, counter.fieldName()).isEqualTo(counter.help());
                    }
                }
                for (Counter label : set.labels()) {
                    for (Family family : exposed.values()) {
                        for (Sample sample : family.samples()) {
                            int gpu = Integer.parseInt(sample.label("gpu"));
                            assertThat(sample.labels().containsKey(label.fieldName()))
                                    .as("%s: label %s on %s of %s GPU %d", file, label.fieldName(), family.name(), profileName, gpu)
                                    .isEqualTo(hasLabel(label.field(), profile.gpu(gpu)));
                        }
                    }
                }
                for (Counter unserved : set.notServed()) {
                    assertThat(exposed).as(file + ": " + unserved.fieldName()).doesNotContainKey(unserved.fieldName());
                }
            }
            System.out.printf("%s: %d files, %d families served%n", profileName, variants().size(), families);
        }
    }

    private static String uuidOf(Sample sample) {
        return sample.labels().containsKey("UUID") ? sample.label("UUID") : sample.label("uuid");
    }

    private static final Pattern LINK = Pattern.compile(Pattern.quote(ServedFields.NVLINK_LINK_BANDWIDTH) + "(\\d+)");

    /** Whether the simulated GPU has the NVML source of a served field (per the mock's profile schema). */
    static boolean hasSource(String field, MockProfile profile, int index, int gpuCount) {
        Map<String, Object> gpu = profile.gpu(index);
        boolean migOn = "enabled".equals(value(gpu, "mig.mode").orElse(null));
        Matcher link = LINK.matcher(field);
        if (link.matches()) {
            return value(gpu, "nvlink").isPresent()
                    && Integer.parseInt(link.group(1)) < ((List<?>) value(gpu, "nvlink.links").orElseThrow()).size();
        }
        if (field.startsWith("DCGM_FI_PROF_PCIE_")) {
            return value(gpu, "gpm").isPresent() && !migOn; // NVML's GPM has no PCIe traffic per GPU instance
        }
        if (field.startsWith("DCGM_FI_PROF_")) {
            return value(gpu, "gpm").isPresent();
        }
        if (field.startsWith("DCGM_FI_DEV_NVLINK_")) {
            return value(gpu, "nvlink").isPresent();
        }
        if (field.startsWith("DCGM_FI_DEV_ECC_")) {
            return value(gpu, "ecc").isPresent();
        }
        if (field.startsWith("DCGM_FI_DEV_RETIRED_")) {
            return value(gpu, "retiredPages").isPresent();
        }
        return switch (field) {
            case "DCGM_FI_DEV_MEMORY_TEMP" -> value(gpu, "temperature.memoryC").isPresent();
            case "DCGM_FI_DEV_FB_RESERVED" -> !migOn; // a GPU instance's memory has no reserved part in NVML
            case "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL" -> !migOn;
            case "DCGM_FI_DEV_ENC_UTIL" -> !migOn && value(gpu, "utilization.encoderPercent").isPresent();
            case "DCGM_FI_DEV_DEC_UTIL" -> !migOn && value(gpu, "utilization.decoderPercent").isPresent();
            case "DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "DCGM_FI_DEV_PCIE_RX_THROUGHPUT" ->
                    value(gpu, "pcieThroughputKBps").isPresent();
            case "DCGM_FI_DEV_POWER_VIOLATION" -> value(gpu, "violationNs.power").isPresent();
            case "DCGM_FI_DEV_THERMAL_VIOLATION" -> value(gpu, "violationNs.thermal").isPresent();
            case "DCGM_FI_DEV_SYNC_BOOST_VIOLATION" -> value(gpu, "violationNs.syncBoost").isPresent();
            case "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION" -> value(gpu, "violationNs.boardLimit").isPresent();
            case "DCGM_FI_DEV_LOW_UTIL_VIOLATION" -> value(gpu, "violationNs.lowUtilization").isPresent();
            case "DCGM_FI_DEV_RELIABILITY_VIOLATION" -> value(gpu, "violationNs.reliability").isPresent();
            case "DCGM_FI_DEV_VGPU_LICENSE_STATUS" -> value(gpu, "gridLicense").isPresent();
            case "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                 "DCGM_FI_DEV_ROW_REMAP_FAILURE" -> value(gpu, "remappedRows").isPresent();
            case "DCGM_EXP_P2P_STATUS" -> gpuCount > 1;
            default -> true;
        };
    }

    /** Whether the simulated GPU has the value of a served label row. */
    static boolean hasLabel(String field, Map<String, Object> gpu) {
        return switch (field) {
            case "DCGM_FI_DEV_SERIAL" -> value(gpu, "serial").isPresent();
            case "DCGM_FI_DEV_INFOROM_IMAGE_VER" -> value(gpu, "inforom.image").isPresent();
            case "DCGM_FI_DEV_OEM_INFOROM_VER" -> value(gpu, "inforom.oem").isPresent();
            case "DCGM_FI_DEV_ECC_INFOROM_VER" -> value(gpu, "inforom.ecc").isPresent();
            case "DCGM_FI_DEV_POWER_INFOROM_VER" -> value(gpu, "inforom.power").isPresent();
            default -> true;
        };
    }
}
