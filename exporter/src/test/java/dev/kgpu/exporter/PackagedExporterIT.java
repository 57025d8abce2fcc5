package dev.kgpu.exporter;

import dev.kgpu.exporter.testing.Await;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.sim.podresources.FakePodResourcesServer;
import dev.kgpu.sim.prometheus.ExpositionParser.Sample;
import dev.kgpu.sim.prometheus.ExpositionParser;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.config.DecoderConfig;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

import static io.restassured.RestAssured.config;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * The packaged exporter ({@code target/quarkus-app}, run as {@code java -jar quarkus-run.jar} with
 * deploy/release/images/jvm.options) doing its real work on an 8 × H100 mock node: collections every second with GPM
 * profiling fields, pod attribution from a kubelet PodResources server, scrapes in both formats and gzip, an
 * XID from the mock's event file, the health endpoints. With {@code quarkus.package.jar.aot.enabled} this run
 * is what Java's AOT cache ({@code app.aot}) is trained on, so it walks every path a scrape on a node takes.
 *
 * <p>The failsafe configuration in the exporter's POM gives the launched process {@code MOCK_NVML_PROFILE=dgx-h100},
 * {@code MOCK_NVML_EVENTS} and {@code DCGM_EXPORTER_LISTEN=:0}; {@link Kubelet} gives it the kubelet socket.
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedExporterIT.Kubelet.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PackagedExporterIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final MockProfile NODE = MockNvml.profile("dgx-h100");

    /** A kubelet PodResources server on a Unix socket, started before the exporter and named in its settings. */
    public static final class Kubelet implements QuarkusTestResourceLifecycleManager {

        static volatile FakePodResourcesServer server;
        private Path dir;

        @Override
        public Map<String, String> start() {
            try {
                dir = Files.createTempDirectory("kgpu-exporter-it");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server = FakePodResourcesServer.start(dir.resolve("pod-resources/kubelet.sock"));
            // settings the exporter reads through MicroProfile Config: passed as -D to the packaged app
            return Map.of("DCGM_EXPORTER_KUBERNETES", "true",
                    "DCGM_POD_RESOURCES_KUBELET_SOCKET", server.socket().toString(),
                    "DCGM_EXPORTER_INTERVAL", "1000",
                    "NODE_NAME", "aot-node");
        }

        @Override
        public void stop() {
            if (server != null) {
                server.close();
            }
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temporary folder left behind is harmless
            }
        }
    }

    @Test
    @Order(1)
    void servesEveryH100WithItsProfilingFields() {
        // GPM values need two samples: the profiling series appear from the second collection on
        var families = Await.until("a collection of the 8 GPUs with their profiling fields", WAIT, () -> {
            var parsed = ExpositionParser.parse(given().get("/metrics").then().statusCode(200)
                    .header("Content-Type", "text/plain; version=0.0.4; charset=utf-8").extract().asString());
            return parsed.containsKey("DCGM_FI_DEV_GPU_TEMP") && parsed.containsKey("DCGM_FI_PROF_GR_ENGINE_ACTIVE")
                    ? parsed : null;
        });

        assertThat(gpus(families.get("DCGM_FI_DEV_GPU_TEMP").samples())).isEqualTo(uuids());
        assertThat(families).containsKeys("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED",
                "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL");
        // NVML GPM on Hopper: the profiling fields have a series per GPU
        assertThat(gpus(families.get("DCGM_FI_PROF_GR_ENGINE_ACTIVE").samples())).isEqualTo(uuids());
        assertThat(gpus(families.get("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE").samples())).isEqualTo(uuids());
        assertThat(families.get("DCGM_FI_DEV_GPU_TEMP").samples().getFirst().labels())
                .containsEntry("Hostname", "aot-node").containsEntry("modelName", "NVIDIA H100 80GB HBM3");
    }

    @Test
    @Order(2)
    void attributesAGpuToThePodThatHoldsIt() {
        String gpu = uuids().stream().sorted().findFirst().orElseThrow();
        Kubelet.server.assign("trainer-0", "ml", "main", "nvidia.com/gpu", List.of(gpu));

        Sample held = Await.until("the pod's labels on " + gpu, WAIT, () -> ExpositionParser
                .parse(given().get("/metrics").asString()).get("DCGM_FI_DEV_GPU_UTIL").samples().stream()
                .filter(s -> gpu.equals(s.label("UUID")) && "trainer-0".equals(s.label("pod")))
                .findFirst().orElse(null));

        assertThat(held.labels()).containsEntry("namespace", "ml").containsEntry("container", "main");
        assertThat(Kubelet.server.requestCount()).isPositive();
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("kgpu_exporter_pod_resources_calls_total{outcome=\"ok\"}"));
    }

    @Test
    @Order(3)
    void servesOpenMetricsAndGzip() throws IOException {
        String openMetrics = given().header("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
                .get("/metrics").then().statusCode(200)
                .header("Content-Type", "application/openmetrics-text; version=1.0.0; charset=utf-8")
                .extract().asString();
        assertThat(openMetrics).endsWith("# EOF\n").contains("# TYPE DCGM_FI_PROF_DRAM_ACTIVE gauge");

        byte[] zipped = given().header("Accept-Encoding", "gzip")
                .config(config().decoderConfig(DecoderConfig.decoderConfig().noContentDecoders()))
                .get("/metrics").then().statusCode(200).header("Content-Encoding", "gzip").extract().asByteArray();
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(zipped))) {
            assertThat(new String(in.readAllBytes())).contains("# TYPE DCGM_FI_DEV_GPU_TEMP gauge");
        }
    }

    @Test
    @Order(4)
    void anXidFromTheEventFileBecomesTheLastXid() {
        String gpu = uuids().stream().sorted().skip(1).findFirst().orElseThrow();
        MockNvml.appendXidToEventsFile(gpu, 79);

        Sample xid = Await.until("DCGM_FI_DEV_XID_ERRORS to show XID 79 on " + gpu, WAIT, () -> ExpositionParser
                .parse(given().get("/metrics").asString()).get("DCGM_FI_DEV_XID_ERRORS").samples().stream()
                .filter(s -> gpu.equals(s.label("UUID")) && "79".equals(s.value()))
                .findFirst().orElse(null));

        assertThat(xid.labels()).containsEntry("err_code", "79").containsEntry("err_msg", "GPU has fallen off the bus");
    }

    @Test
    @Order(5)
    void healthAndItsOwnMetricsAnswer() {
        given().get("/health").then().statusCode(200).body(equalTo("OK"));
        given().get("/q/health/live").then().statusCode(200).body(containsString("\"UP\""));
        given().get("/q/health/ready").then().statusCode(200).body(containsString("\"UP\""));
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("kgpu_exporter_scrape_duration_seconds_count"))
                .body(containsString("kgpu_exporter_collection_duration_seconds_count"))
                .body(containsString("kgpu_exporter_snapshot_series"));
    }

    private static Set<String> uuids() {
        return NODE.gpus().stream().map(g -> MockProfile.string(g, "uuid")).collect(Collectors.toSet());
    }

    private static Set<String> gpus(List<Sample> samples) {
        return samples.stream().map(s -> s.label("UUID")).collect(Collectors.toSet());
    }
}
