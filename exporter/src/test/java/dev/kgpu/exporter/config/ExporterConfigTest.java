package dev.kgpu.exporter.config;

import dev.kgpu.agent.settings.SettingsTable;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.nvml.NvmlOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExporterConfigTest {

    @TempDir
    Path dir;

    private static ExporterConfig load(Map<String, String> env, String... args) {
        return ExporterConfig.load(args, env::get, () -> "host-1");
    }

    private Path counters(String rows) throws IOException {
        Path file = dir.resolve("c.csv");
        Files.writeString(file, rows);
        return file;
    }

    @Test
    void defaultsAreDcgmExportersAndTheBuiltInCountersStandInForTheMissingDefaultFile() {
        ExporterConfig config = load(Map.of());

        assertThat(config.collectors().path()).isEqualTo(Path.of("/etc/dcgm-exporter/default-counters.csv"));
        assertThat(config.collectors().builtIn()).hasValue("default-counters.csv");
        assertThat(config.counters().source()).isEqualTo("built-in default-counters.csv");
        assertThat(config.counters().metrics()).isNotEmpty();
        assertThat(config.listenHost()).isEmpty();
        assertThat(config.listenPort()).isEqualTo(9400);
        assertThat(config.interval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.kubernetes()).isFalse();
        assertThat(config.podResourcesSocket()).isEqualTo(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"));
        assertThat(config.gpuIdType()).isEqualTo(GpuIdType.UID);
        assertThat(config.xidCountWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.hostname()).hasValue(new HostnameLabel("Hostname", "host-1"));
        assertThat(config.nvml()).isEqualTo(NvmlOptions.defaults());
    }

    @Test
    void flagsWinOverTheEnvironmentWhichWinsOverDefaults() throws IOException {
        Path file = counters("DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n");
        Map<String, String> env = Map.of("DCGM_EXPORTER_LISTEN", "127.0.0.1:9500", "DCGM_EXPORTER_INTERVAL", "1000",
                "DCGM_EXPORTER_KUBERNETES", "true", "NVIDIA_RESOURCE_NAMES", "example.com/gpu, other.com/gpu",
                "DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE", "device-name", "NODE_NAME", "node-7",
                "KGPU_EXPORTER_HOSTNAME_LABEL", "hostname", "DCGM_EXPORTER_COLLECTORS", file.toString(),
                "KGPU_NVML_LIBRARY", "/lib/libnvidia-ml.so.1");

        ExporterConfig config = load(env, "-c", "2000", "--address=:9600", "-x", "60000");

        assertThat(config.interval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.listenPort()).isEqualTo(9600);
        assertThat(config.xidCountWindow()).isEqualTo(Duration.ofMinutes(1));
        assertThat(config.kubernetes()).isTrue();
        assertThat(config.nvidiaResourceNames()).containsExactly("example.com/gpu", "other.com/gpu");
        assertThat(config.gpuIdType()).isEqualTo(GpuIdType.DEVICE_NAME);
        assertThat(config.hostname()).hasValue(new HostnameLabel("hostname", "node-7"));
        assertThat(config.collectors().builtIn()).isEmpty();
        assertThat(config.counters().source()).isEqualTo(file.toString());
        assertThat(config.counters().metrics()).hasSize(1);
        assertThat(config.nvml().library()).hasValue(Path.of("/lib/libnvidia-ml.so.1"));
    }

    @Test
    void noHostnameDropsTheLabelAndABooleanFlagTakesNoValueFromTheNextArgument() {
        assertThat(load(Map.of(), "-n").hostname()).isEqualTo(Optional.empty());
        assertThat(load(Map.of("DCGM_EXPORTER_NO_HOSTNAME", "true"), "--no-hostname=false").hostname()).isPresent();
        assertThatThrownBy(() -> load(Map.of(), "-n", "false"))
                .hasMessage("invalid configuration: command line was 'false' but it must hold only flags, as"
                        + " kgpu-exporter takes no arguments; a boolean flag takes its value as --flag=false, not as"
                        + " the next argument");
    }

    @Test
    void theStartupPagesGoBackAfterTheFirstCollectionUnlessTurnedOff() {
        assertThat(load(Map.of()).releaseStartupPages()).isTrue();
        assertThat(load(Map.of("KGPU_RELEASE_STARTUP_PAGES", "false")).releaseStartupPages()).isFalse();
        assertThatThrownBy(() -> load(Map.of("KGPU_RELEASE_STARTUP_PAGES", "off")))
                .hasMessageContaining("KGPU_RELEASE_STARTUP_PAGES was 'off'").hasMessageNotContaining("\n");
    }

    @Test
    void everyBadValueIsReportedWithItsNameAndValue() {
        Map<String, String> env = Map.of("DCGM_EXPORTER_INTERVAL", "soon", "DCGM_EXPORTER_LISTEN", "9400",
                "DCGM_EXPORTER_KUBERNETES", "maybe", "DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE", "index",
                "DCGM_EXPORTER_COLLECTORS", "/missing/counters.csv", "KGPU_EXPORTER_HOSTNAME_LABEL", "HOSTNAME");

        assertThatThrownBy(() -> load(env, "--bogus"))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .extracting(ValidationFailure::message).containsExactlyInAnyOrder(
                        "--bogus was '' but it is not a flag of kgpu-exporter (see --help)",
                        "DCGM_EXPORTER_COLLECTORS was '/missing/counters.csv' but it names no file",
                        "DCGM_EXPORTER_LISTEN was '9400' but it must be [host]:port, e.g. ':9400' or '127.0.0.1:9400'",
                        "DCGM_EXPORTER_INTERVAL was 'soon' but it must be a whole number of milliseconds, at least 100",
                        "DCGM_EXPORTER_KUBERNETES was 'maybe' but it must be a boolean: 1, t, T, TRUE, true, True, 0, f,"
                                + " F, FALSE, false or False",
                        "DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE was 'index' but it must be one of uid, device-name",
                        "KGPU_EXPORTER_HOSTNAME_LABEL was 'HOSTNAME' but it must be 'Hostname' (dcgm-exporter up to"
                                + " 4.8.2) or 'hostname' (4.8.3 and later)"));
        assertThatThrownBy(() -> load(Map.of(), "-c", "0"))
                .hasMessage("invalid configuration: -c was '0' but it must be a whole number of milliseconds, at least 100");
        assertThatThrownBy(() -> load(Map.of("DCGM_EXPORTER_INTERVAL", "1")))
                .hasMessage("invalid configuration: DCGM_EXPORTER_INTERVAL was '1' but it must be a whole number of"
                        + " milliseconds, at least 100");
        assertThatThrownBy(() -> load(Map.of(), "-f"))
                .hasMessage("invalid configuration: -f was 'null' but it needs a value: -f=<string>");
    }

    @Test
    void aBadCountersFileIsReportedWithTheSettingsNamingItsLine() throws IOException {
        Path file = counters("DCGM_FI_DEV_SM_CLOCK, gauge\n");
        assertThatThrownBy(() -> load(Map.of("DCGM_EXPORTER_INTERVAL", "0"), "-f", file.toString()))
                .hasMessage("invalid configuration: DCGM_EXPORTER_INTERVAL was '0' but it must be a whole number of"
                        + " milliseconds, at least 100; counters file '" + file + "' line 1 was 'DCGM_FI_DEV_SM_CLOCK, gauge'"
                        + " but it has 2 fields and a row needs exactly 3 fields (DCGM field, Prometheus type, help"
                        + " message)");
    }

    @Test
    void gpuOperatorsCountersPathFallsBackToTheBuiltInCopyToo() {
        ExporterConfig config = load(Map.of("DCGM_EXPORTER_COLLECTORS", "/etc/dcgm-exporter/dcp-metrics-included.csv"));
        assertThat(config.collectors().builtIn()).hasValue("dcp-metrics-included.csv");
        assertThat(List.of(config.listenPort())).containsExactly(9400);
    }

    @Test
    void helpListsEveryFlag() {
        assertThatThrownBy(() -> load(Map.of(), "-h")).isInstanceOfSatisfying(UsageRequestedException.class,
                e -> assertThat(e.getMessage()).contains("--collectors, -f=<string>", "--kubernetes, -k\n",
                        "(env DCGM_EXPORTER_INTERVAL; default '30000')"));
    }

    @Test
    void theReadmeNamesEveryFlagAndVariable() {
        SettingsTable.assertDocumented(Path.of("README.md"), "## Settings", ExporterConfig.SETTINGS);
    }
}
