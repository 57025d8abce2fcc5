package dev.kgpu.exporter.exposition;

import dev.kgpu.exporter.config.HostnameLabel;
import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.counters.MetricType;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricFamily;
import dev.kgpu.exporter.metrics.MetricRow;
import dev.kgpu.exporter.metrics.Values;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class ExpositionRendererTest {

    private static final Entity GPU0 = Entity.gpu(0, "GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52", "00000000:3B:00.0",
            "NVIDIA H100 80GB HBM3");
    private static final Counter UTIL = new Counter("DCGM_FI_DEV_GPU_UTIL", MetricType.GAUGE, "GPU utilization (in %).", 1);
    private static final Counter POWER = new Counter("DCGM_FI_DEV_POWER_USAGE", MetricType.GAUGE, "Power draw (in W).", 2);
    private static final Counter ENERGY = new Counter("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", MetricType.COUNTER,
            "Total energy consumption since boot (in mJ).", 3);
    private static final Counter XID = new Counter("DCGM_FI_DEV_XID_ERRORS", MetricType.GAUGE,
            "Value of the last XID error encountered.", 4);

    private static MetricRow row(Entity entity, Map<String, String> labels, Map<String, String> attributes, String value) {
        return new MetricRow(entity, new TreeMap<>(labels), new TreeMap<>(attributes), value);
    }

    @Test
    void writesDcgmExportersTemplateLineByLine() {
        Map<String, String> driver = Map.of("DCGM_FI_DRIVER_VERSION", "570.124.06");
        List<MetricFamily> families = List.of(
                new MetricFamily(UTIL, List.of(row(GPU0, driver,
                        Map.of("pod", "job-0", "namespace", "ml", "container", "trainer"), "87"))),
                new MetricFamily(POWER, List.of(row(GPU0, driver, Map.of(), Values.of(71.234)))),
                new MetricFamily(XID, List.of(row(GPU0.instance(1, "3g.40gb"), driver,
                        Map.of("err_code", "0", "err_msg", "No Error", "pod", "p", "namespace", "n", "container", "c"),
                        "0"))));

        String text = new String(new ExpositionRenderer(Optional.of(new HostnameLabel("Hostname", "gpu-node-1")), false)
                .render(families, ExpositionFormat.TEXT), StandardCharsets.UTF_8);

        assertThat(text).isEqualTo("""
                # HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
                # TYPE DCGM_FI_DEV_GPU_UTIL gauge
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:3B:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-node-1",DCGM_FI_DRIVER_VERSION="570.124.06",container="trainer",namespace="ml",pod="job-0"} 87
                # HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
                # TYPE DCGM_FI_DEV_POWER_USAGE gauge
                DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:3B:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-node-1",DCGM_FI_DRIVER_VERSION="570.124.06"} 71.234000
                # HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.
                # TYPE DCGM_FI_DEV_XID_ERRORS gauge
                DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:3B:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",GPU_I_PROFILE="3g.40gb",GPU_I_ID="1",Hostname="gpu-node-1",DCGM_FI_DRIVER_VERSION="570.124.06",container="c",err_code="0",err_msg="No Error",namespace="n",pod="p"} 0
                """);
    }

    @Test
    void theHostnameLabelCanBeLowerCaseOrAbsentAndBlanksInTheModelReplaced() {
        List<MetricFamily> families = List.of(new MetricFamily(UTIL, List.of(row(GPU0, Map.of(), Map.of(), "1"))));

        String lower = new String(new ExpositionRenderer(Optional.of(new HostnameLabel("hostname", "testhost")), true)
                .render(families, ExpositionFormat.TEXT), StandardCharsets.UTF_8);
        String none = new String(new ExpositionRenderer(Optional.empty(), false)
                .render(families, ExpositionFormat.TEXT), StandardCharsets.UTF_8);

        assertThat(lower).contains("modelName=\"NVIDIA-H100-80GB-HBM3\",hostname=\"testhost\"} 1\n");
        assertThat(none).contains("modelName=\"NVIDIA H100 80GB HBM3\"} 1\n").doesNotContain("ostname");
    }

    @Test
    void labelValuesAndHelpAreEscaped() {
        Entity odd = Entity.gpu(1, "GPU-1", "b", "Model \"X\" \\ 2\nrev");
        Counter help = new Counter("DCGM_FI_DEV_GPU_TEMP", MetricType.GAUGE, "a \\ b\nc \"d\"", 1);

        String text = new String(new ExpositionRenderer(Optional.empty(), false).render(
                List.of(new MetricFamily(help, List.of(row(odd, Map.of(), Map.of(), "3")))), ExpositionFormat.TEXT),
                StandardCharsets.UTF_8);
        String om = new String(new ExpositionRenderer(Optional.empty(), false).render(
                List.of(new MetricFamily(help, List.of(row(odd, Map.of(), Map.of(), "3")))), ExpositionFormat.OPENMETRICS),
                StandardCharsets.UTF_8);

        assertThat(text).contains("# HELP DCGM_FI_DEV_GPU_TEMP a \\\\ b\\nc \"d\"\n")
                .contains("modelName=\"Model \\\"X\\\" \\\\ 2\\nrev\"");
        assertThat(om).contains("# HELP DCGM_FI_DEV_GPU_TEMP a \\\\ b\\nc \\\"d\\\"\n");
    }

    @Test
    void openMetricsKeepsSeriesNamesTypesCountersWithoutTotalAsUnknownAndEndsWithEof() {
        Counter eccTotal = new Counter("my_errors_total", MetricType.COUNTER, "Errors.", 5);
        List<MetricFamily> families = List.of(
                new MetricFamily(ENERGY, List.of(row(GPU0, Map.of(), Map.of(), "42"))),
                new MetricFamily(eccTotal, List.of(row(GPU0, Map.of(), Map.of(), "1"))),
                new MetricFamily(UTIL, List.of(row(GPU0, Map.of(), Map.of(), "2"))));

        String om = new String(new ExpositionRenderer(Optional.empty(), false)
                .render(families, ExpositionFormat.OPENMETRICS), StandardCharsets.UTF_8);

        assertThat(om).contains("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{")
                .contains("# HELP my_errors Errors.\n# TYPE my_errors counter\nmy_errors_total{")
                .contains("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n")
                .endsWith("} 2\n# EOF\n");
    }

    @Test
    void aSnapshotRendersBothFormatsCompressesOnceAndSharesTheBytes() throws Exception {
        Snapshot snapshot = Snapshot.of(Instant.EPOCH,
                List.of(new MetricFamily(UTIL, List.of(row(GPU0, Map.of(), Map.of(), "2")))),
                new ExpositionRenderer(Optional.empty(), false));

        assertThat(snapshot.body(ExpositionFormat.TEXT, false)).isSameAs(snapshot.body(ExpositionFormat.TEXT, false));
        assertThat(snapshot.body(ExpositionFormat.OPENMETRICS, false))
                .isSameAs(snapshot.body(ExpositionFormat.OPENMETRICS, false));
        byte[] gz = snapshot.body(ExpositionFormat.TEXT, true);
        assertThat(gz).isSameAs(snapshot.body(ExpositionFormat.TEXT, true));
        try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(gz))) {
            assertThat(in.readAllBytes()).isEqualTo(snapshot.body(ExpositionFormat.TEXT, false));
        }
        assertThat(snapshot.seriesCount()).isEqualTo(1);
        assertThat(new String(Snapshot.empty().body(ExpositionFormat.OPENMETRICS, false))).isEqualTo("# EOF\n");
    }

    @Test
    void theAcceptHeaderChoosesTheFormat() {
        assertThat(ExpositionFormat.forAccept(null)).isEqualTo(ExpositionFormat.TEXT);
        assertThat(ExpositionFormat.forAccept("text/plain;version=0.0.4;q=1,*/*;q=0.1")).isEqualTo(ExpositionFormat.TEXT);
        assertThat(ExpositionFormat.forAccept("application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,"
                + "application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"))
                .isEqualTo(ExpositionFormat.OPENMETRICS);
        assertThat(ExpositionFormat.forAccept("application/openmetrics-text;q=0")).isEqualTo(ExpositionFormat.TEXT);
    }
}
