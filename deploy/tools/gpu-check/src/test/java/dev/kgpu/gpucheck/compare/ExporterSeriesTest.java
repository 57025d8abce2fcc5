package dev.kgpu.gpucheck.compare;

import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.Val;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ExporterSeriesTest {

    private static final String UUID = "GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    private static final String LABELS = "{gpu=\"0\",UUID=\"" + UUID + "\",pci_bus_id=\"00000000:19:00.0\",device=\"nvidia0\","
            + "modelName=\"NVIDIA H200\",Hostname=\"n\",DCGM_FI_DRIVER_VERSION=\"580.159.04\"}";

    private static NodeValues node(boolean gpm) {
        Map<String, Val> f = new LinkedHashMap<>();
        f.put(Fields.PRODUCT_NAME, Val.text("NVIDIA H200"));
        f.put(Fields.MINOR_NUMBER, Val.num(0));
        f.put(Fields.GPU_TEMP, Val.num(29));
        f.put(Fields.POWER_DRAW, Val.num(76.3));
        f.put(Fields.MEMORY_TEMP, Val.notAvailable("NOT_SUPPORTED"));
        f.put(Fields.ENERGY_MJ, Val.num(1000));
        f.put(Fields.GPM, Val.text(gpm ? "yes" : "no"));
        return new NodeValues("test", Map.of(Fields.DRIVER_VERSION, Val.text("580.159.04")),
                List.of(new NodeValues.GpuValues(0, UUID, "00000000:19:00.0", f)));
    }

    private static List<ExporterSeries.Counter> counters(String... fields) {
        return java.util.Arrays.stream(fields).map(f -> new ExporterSeries.Counter(f, "gauge")).toList();
    }

    private static String family(String name, String value) {
        return "# HELP " + name + " help\n# TYPE " + name + " gauge\n" + name + LABELS + " " + value + "\n";
    }

    @Test
    void everyRowOfTheBuiltInCountersFileHasARule() {
        assertThat(ExporterSeries.defaultCounters()).isNotEmpty()
                .filteredOn(c -> !c.type().equals("label"))
                .allSatisfy(c -> assertThat(ExporterSeries.RULES).containsKey(c.field()));
    }

    @Test
    void servedValuesWithinToleranceMatch() {
        String scrape = family("DCGM_FI_DEV_GPU_TEMP", "30") + family("DCGM_FI_DEV_POWER_USAGE", "80.000000")
                + family("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "1500") + family("DCGM_FI_DEV_XID_ERRORS", "0")
                + family("DCGM_FI_PROF_DRAM_ACTIVE", "0.5");

        List<Finding> findings = ExporterSeries.compare(scrape, counters("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE",
                "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_PROF_DRAM_ACTIVE"),
                node(true), List.of(node(true)));

        assertThat(findings).filteredOn(f -> f.agreement() != Agreement.MATCH).isEmpty();
        assertThat(findings).extracting(Finding::field).contains("DCGM_FI_DEV_MEMORY_TEMP", "label modelName");
    }

    @Test
    void aMissingSeriesAnUnexpectedOneAndAWrongValueAreMismatches() {
        String scrape = family("DCGM_FI_DEV_POWER_USAGE", "160.000000") + family("DCGM_FI_DEV_MEMORY_TEMP", "33")
                + family("DCGM_FI_PROF_DRAM_ACTIVE", "0.5");

        List<String> mismatches = ExporterSeries.compare(scrape, counters("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE",
                        "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_PROF_DRAM_ACTIVE"), node(false), List.of(node(false))).stream()
                .filter(f -> f.agreement() == Agreement.MISMATCH).map(Finding::field).toList();

        assertThat(mismatches).containsExactly("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_MEMORY_TEMP",
                "DCGM_FI_PROF_DRAM_ACTIVE");
    }

    @Test
    void anExpositionThatDoesNotParseIsAMismatch() {
        List<Finding> findings = ExporterSeries.compare("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 30\n", counters("DCGM_FI_DEV_GPU_TEMP"),
                node(false), List.of());
        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.agreement()).isEqualTo(Agreement.MISMATCH);
            assertThat(f.field()).isEqualTo("/metrics");
        });
    }
}
