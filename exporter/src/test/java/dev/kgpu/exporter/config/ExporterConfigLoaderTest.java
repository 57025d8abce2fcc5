package dev.kgpu.exporter.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExporterConfigLoaderTest {

    private static ExporterConfigLoader loader(Map<String, String> env) {
        return new ExporterConfigLoader(env::get, () -> "host-1", path -> path.toString().startsWith("/exists"));
    }

    @Test
    void defaultsAreDcgmExportersAndTheBuiltInCountersStandInForTheMissingDefaultFile() {
        ExporterConfig config = loader(Map.of()).load();

        assertThat(config.collectors().path()).isEqualTo(Path.of("/etc/dcgm-exporter/default-counters.csv"));
        assertThat(config.collectors().builtIn()).hasValue("default-counters.csv");
        assertThat(config.listenHost()).isEmpty();
        assertThat(config.listenPort()).isEqualTo(9400);
        assertThat(config.interval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.kubernetes()).isFalse();
        assertThat(config.podResourcesSocket()).isEqualTo(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"));
        assertThat(config.gpuIdType()).isEqualTo(GpuIdType.UID);
        assertThat(config.xidCountWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.hostname()).hasValue(new HostnameLabel("Hostname", "host-1"));
    }

    @Test
    void flagsWinOverTheEnvironmentWhichWinsOverDefaults() {
        Map<String, String> env = Map.of("DCGM_EXPORTER_LISTEN", "127.0.0.1:9500", "DCGM_EXPORTER_INTERVAL", "1000",
                "DCGM_EXPORTER_KUBERNETES", "true", "NVIDIA_RESOURCE_NAMES", "example.com/gpu, other.com/gpu",
                "DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE", "device-name", "NODE_NAME", "node-7",
                "KGPU_EXPORTER_HOSTNAME_LABEL", "hostname", "DCGM_EXPORTER_COLLECTORS", "/exists/c.csv");

        ExporterConfig config = loader(env).load("-c", "2000", "--address=:9600", "-x", "60000");

        assertThat(config.interval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.listenPort()).isEqualTo(9600);
        assertThat(config.xidCountWindow()).isEqualTo(Duration.ofMinutes(1));
        assertThat(config.kubernetes()).isTrue();
        assertThat(config.nvidiaResourceNames()).containsExactly("example.com/gpu", "other.com/gpu");
        assertThat(config.gpuIdType()).isEqualTo(GpuIdType.DEVICE_NAME);
        assertThat(config.hostname()).hasValue(new HostnameLabel("hostname", "node-7"));
        assertThat(config.collectors().builtIn()).isEmpty();
    }

    @Test
    void noHostnameDropsTheLabel() {
        assertThat(loader(Map.of()).load("-n").hostname()).isEqualTo(Optional.empty());
    }

    @Test
    void everyBadValueIsReportedWithItsNameAndValue() {
        Map<String, String> env = Map.of("DCGM_EXPORTER_INTERVAL", "soon", "DCGM_EXPORTER_LISTEN", "9400",
                "DCGM_EXPORTER_KUBERNETES", "maybe", "DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE", "index",
                "DCGM_EXPORTER_COLLECTORS", "/missing/counters.csv", "KGPU_EXPORTER_HOSTNAME_LABEL", "HOSTNAME");

        assertThatThrownBy(() -> loader(env).load("--bogus"))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactlyInAnyOrder(
                        "argument 1 was '--bogus' but it is not a flag of the exporter",
                        "DCGM_EXPORTER_COLLECTORS was '/missing/counters.csv' but it names no file",
                        "DCGM_EXPORTER_LISTEN was '9400' but it must be [host]:port, e.g. ':9400' or '127.0.0.1:9400'",
                        "DCGM_EXPORTER_INTERVAL was 'soon' but it must be a positive number of milliseconds",
                        "DCGM_EXPORTER_KUBERNETES was 'maybe' but it must be true or false",
                        "DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE was 'index' but it must be 'uid' or 'device-name'",
                        "KGPU_EXPORTER_HOSTNAME_LABEL was 'HOSTNAME' but it must be 'Hostname' (dcgm-exporter up to"
                                + " 4.8.2) or 'hostname' (4.8.3 and later)"));
        assertThatThrownBy(() -> loader(Map.of()).load("-c", "0"))
                .hasMessage("-c/--collect-interval was '0' but it must be a positive number of milliseconds");
        assertThatThrownBy(() -> loader(Map.of()).load("-f"))
                .hasMessage("argument 1 was '-f' but it needs a value");
    }

    @Test
    void gpuOperatorsCountersPathFallsBackToTheBuiltInCopyToo() {
        ExporterConfig config = loader(Map.of("DCGM_EXPORTER_COLLECTORS",
                "/etc/dcgm-exporter/dcp-metrics-included.csv")).load();
        assertThat(config.collectors().builtIn()).hasValue("dcp-metrics-included.csv");
        assertThat(List.of(config.listenPort())).containsExactly(9400);
    }
}
