package dev.kgpu.exporter.counters;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

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
                "DCGM_FI_PROF_PIPE_FP16_ACTIVE", "DCGM_EXP_P2P_STATUS", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L0");
        assertThat(set.labels()).extracting(Counter::fieldName).containsExactly("DCGM_FI_DRIVER_VERSION",
                "DCGM_FI_NVML_VERSION", "DCGM_FI_DEV_BRAND", "DCGM_FI_DEV_SERIAL", "DCGM_FI_DEV_OEM_INFOROM_VER",
                "DCGM_FI_DEV_ECC_INFOROM_VER", "DCGM_FI_DEV_POWER_INFOROM_VER", "DCGM_FI_DEV_INFOROM_IMAGE_VER",
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
    void anUnknownTypeOrAnOpenQuoteIsAnError() {
        assertThatThrownBy(() -> CountersFile.parse("f", "DCGM_FI_DEV_GPU_TEMP, Gauge, x"))
                .hasMessageContaining("type 'Gauge', which is not one of gauge, counter, histogram, summary, label");
        assertThatThrownBy(() -> CountersFile.parse("f", "DCGM_FI_DEV_GPU_TEMP, gauge, \"open"))
                .hasMessageContaining("leaves a quoted field open");
    }

    @Test
    void aNameGivenAgainIsServedOnceAsItsFirstRow() {
        // dcgm-exporter's own etc/1.x-compatibility-metrics.csv names dcgm_fi_prof_pcie_tx_bytes twice
        CounterSet set = CountersFile.parse("f", "DCGM_FI_DEV_GPU_TEMP, gauge, x\nDCGM_FI_DEV_GPU_TEMP, counter, y\n");

        assertThat(set.metrics()).singleElement().satisfies(c -> assertThat(c.help()).isEqualTo("x"));
        assertThat(set.duplicates()).singleElement().satisfies(d -> {
            assertThat(d.counter().line()).isEqualTo(2);
            assertThat(d.firstLine()).isEqualTo(1);
        });
    }

    @Test
    void dcgmExporter1xNamesReadTheFieldOfTheSameIdUnderTheirOwnName() {
        CounterSet set = CountersFile.parse("f", """
                dcgm_sm_clock,     gauge, SM clock frequency (in MHz).
                dcgm_pcie_tx_throughput, counter, Total number of bytes transmitted through PCIe TX (in KB) via NVML.
                dcgm_fi_prof_pipe_tensor_active, gauge, Ratio of cycles the tensor (HMMA) pipe is active (in %).
                DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).
                """);

        assertThat(set.metrics()).extracting(Counter::fieldName, Counter::field).containsExactly(
                tuple("dcgm_sm_clock", "DCGM_FI_DEV_SM_CLOCK"),
                tuple("dcgm_pcie_tx_throughput", "DCGM_FI_DEV_PCIE_TX_THROUGHPUT"),
                tuple("dcgm_fi_prof_pipe_tensor_active", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"),
                tuple("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_SM_CLOCK"));
        assertThat(set.reading("DCGM_FI_DEV_SM_CLOCK")).hasSize(2);
        assertThatThrownBy(() -> CountersFile.parse("f", "dcgm_no_such_field, gauge, x"))
                .hasMessageContaining("'dcgm_no_such_field' is no DCGM field");
    }

    @Test
    void aFileWithoutRowsIsRefused() {
        assertThatThrownBy(() -> CountersFile.parse("empty.csv", "# Format\n\n# DCGM_FI_DEV_SM_CLOCK, gauge, x\n"))
                .hasMessage("counters file was 'empty.csv' but it has no counter rows, only comments and blank lines:"
                        + " the exporter would serve nothing");
    }

    @Test
    void realDcgmFieldsKgpuCannotReadAreKeptAsideForOneWarning() {
        CounterSet set = CountersFile.parse("f", """
                DCGM_FI_DEV_FAN_SPEED, gauge, Fan speed.
                DCGM_EXP_GPU_HEALTH_STATUS, counter, DCGM reported health status
                DCGM_FI_CUDA_DRIVER_VERSION, label, CUDA driver version
                DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
                DCGM_EXP_P2P_STATUS, counter, P2P NvLink status
                DCGM_FI_DEV_OEM_INFOROM_VER, label, OEM inforom version
                """);

        assertThat(set.notServed()).extracting(Counter::fieldName)
                .containsExactly("DCGM_FI_DEV_FAN_SPEED", "DCGM_EXP_GPU_HEALTH_STATUS", "DCGM_FI_CUDA_DRIVER_VERSION");
        assertThat(set.metrics()).extracting(Counter::fieldName).containsExactly("DCGM_FI_DEV_GPU_TEMP", "DCGM_EXP_P2P_STATUS");
        assertThat(set.labels()).extracting(Counter::fieldName).containsExactly("DCGM_FI_DEV_OEM_INFOROM_VER");
    }

    @Test
    void aFileIsReadBoundedByTheBytesReadNotByItsSize() throws java.io.IOException {
        assertThatThrownBy(() -> CountersFile.read(java.nio.file.Path.of("/dev/zero")))
                .isInstanceOfSatisfying(CountersException.class, e -> assertThat(e.unreadable()).isTrue())
                .hasMessage("counters file was '/dev/zero' but it must name a file of at most 1048576 bytes (1 MiB);"
                        + " reading stopped there");
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
