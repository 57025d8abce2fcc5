package dev.kgpu.exporter.counters;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CountersFileTest {

    @ParameterizedTest
    @ValueSource(strings = {"default-counters.csv", "dcp-metrics-included.csv"})
    void theBuiltInFilesHoldDcgmExportersDefaultRows(String name) {
        CounterSet set = CountersFile.readBuiltIn(name);

        assertThat(set.metrics()).hasSize(25);
        assertThat(set.labels()).extracting(Counter::fieldName).containsExactly("DCGM_FI_DRIVER_VERSION");
        assertThat(set.notServed()).isEmpty();
        assertThat(set.metrics().getFirst()).isEqualTo(new Counter("DCGM_FI_DEV_SM_CLOCK", MetricType.GAUGE,
                "SM clock frequency (in MHz).", set.metrics().getFirst().line()));
        assertThat(set.metric("DCGM_FI_PROF_PCIE_RX_BYTES").orElseThrow().help()).isEqualTo(
                "The rate of data received over the PCIe bus - including both protocol headers and data payloads"
                        + " - in bytes per second.");
        assertThat(set.metric("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION").orElseThrow().type())
                .isEqualTo(MetricType.COUNTER);
        assertThat(set.profiling()).hasSize(5);
    }

    @Test
    void everyOptInRowOfTheBuiltInFileIsServedWhenSwitchedOn() {
        String text = new String(readResource("default-counters.csv"))
                .replaceAll("(?m)^#(DCGM_[A-Z0-9_]+,)", "$1");

        CounterSet set = CountersFile.parse("uncommented", text);

        assertThat(set.notServed()).isEmpty();
        assertThat(set.metrics()).extracting(Counter::fieldName).contains("DCGM_EXP_XID_ERRORS_COUNT",
                "DCGM_EXP_CLOCK_EVENTS_COUNT", "DCGM_FI_DEV_POWER_VIOLATION", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
                "DCGM_FI_DEV_RETIRED_PENDING", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
                "DCGM_FI_PROF_PIPE_FP16_ACTIVE");
        assertThat(set.labels()).extracting(Counter::fieldName).containsExactly("DCGM_FI_DRIVER_VERSION",
                "DCGM_FI_NVML_VERSION", "DCGM_FI_DEV_BRAND", "DCGM_FI_DEV_SERIAL", "DCGM_FI_DEV_INFOROM_IMAGE_VER",
                "DCGM_FI_DEV_VBIOS_VERSION");
    }

    @Test
    void commentsBlankLinesAndBlanksAroundFieldsAreIgnoredAndQuotesMayHoldCommas() {
        CounterSet set = CountersFile.parse("f.csv", "# a comment\n"
                + "   # an indented comment\n"
                + "\n"
                + "DCGM_FI_DEV_GPU_TEMP ,\tgauge ,  GPU temperature (in C).\n"
                + "DCGM_FI_DEV_POWER_USAGE, gauge, \"Power draw, in W \"\"board\"\"\"\n");

        assertThat(set.metrics()).extracting(Counter::help)
                .containsExactly("GPU temperature (in C).", "Power draw, in W \"board\"");
        assertThat(set.metrics()).extracting(Counter::line).containsExactly(4, 5);
    }

    @Test
    void aRowWithoutExactlyThreeFieldsNamesFileLineAndContent() {
        assertThatThrownBy(() -> CountersFile.parse("/etc/dcgm-exporter/my.csv", """
                DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
                # fine
                DCGM_FI_DEV_SM_CLOCK, gauge
                """))
                .isInstanceOf(CountersException.class)
                .hasMessage("counters file '/etc/dcgm-exporter/my.csv' line 3 was 'DCGM_FI_DEV_SM_CLOCK, gauge' but it"
                        + " has 2 fields and a row needs exactly 3 fields (DCGM field, Prometheus type, help message)");
        assertThatThrownBy(() -> CountersFile.parse("f", "DCGM_FI_DEV_SM_CLOCK, gauge, SM clock, in MHz"))
                .hasMessageContaining("line 1").hasMessageContaining("has 4 fields");
    }

    @Test
    void anUnknownFieldNameIsAnErrorNamingIt() {
        assertThatThrownBy(() -> CountersFile.parse("f.csv", "DCGM_FI_DEV_GPU_TEMPERATURE, gauge, typo\n"))
                .isInstanceOf(CountersException.class)
                .hasMessageContaining("line 1")
                .hasMessageContaining("'DCGM_FI_DEV_GPU_TEMPERATURE' is no DCGM field");
    }

    @Test
    void anUnknownTypeOrARepeatedFieldIsAnError() {
        assertThatThrownBy(() -> CountersFile.parse("f", "DCGM_FI_DEV_GPU_TEMP, Gauge, x"))
                .hasMessageContaining("type 'Gauge', which is not one of gauge, counter, histogram, summary, label");
        assertThatThrownBy(() -> CountersFile.parse("f", "DCGM_FI_DEV_GPU_TEMP, gauge, x\nDCGM_FI_DEV_GPU_TEMP, gauge, y"))
                .hasMessageContaining("line 2").hasMessageContaining("a second time (first on line 1)");
        assertThatThrownBy(() -> CountersFile.parse("f", "DCGM_FI_DEV_GPU_TEMP, gauge, \"open"))
                .hasMessageContaining("leaves a quoted field open");
    }

    @Test
    void realDcgmFieldsKgpuCannotReadAreKeptAsideForOneWarning() {
        CounterSet set = CountersFile.parse("f", """
                DCGM_FI_DEV_FAN_SPEED, gauge, Fan speed.
                DCGM_EXP_P2P_STATUS, counter, P2P NvLink status
                DCGM_FI_DEV_OEM_INFOROM_VER, label, OEM inforom version
                DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
                """);

        assertThat(set.notServed()).extracting(Counter::fieldName)
                .containsExactly("DCGM_FI_DEV_FAN_SPEED", "DCGM_EXP_P2P_STATUS", "DCGM_FI_DEV_OEM_INFOROM_VER");
        assertThat(set.metrics()).extracting(Counter::fieldName).containsExactly("DCGM_FI_DEV_GPU_TEMP");
    }

    @Test
    void theCatalogKnowsCurrentAndDeprecatedDcgmNames() {
        assertThat(DcgmFieldCatalog.get().id("DCGM_FI_DEV_XID_ERRORS")).hasValue(230);
        assertThat(DcgmFieldCatalog.get().id("DCGM_FI_DEV_XID_ERROR")).hasValue(230);
        assertThat(DcgmFieldCatalog.get().id("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE")).hasValue(1004);
        assertThat(XidMessages.of(0)).isEqualTo("No Error");
        assertThat(XidMessages.of(79)).isEqualTo("GPU has fallen off the bus");
        assertThat(XidMessages.of(100_000)).isEqualTo("Unknown Error");
    }

    private static byte[] readResource(String name) {
        try (var in = CountersFile.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
