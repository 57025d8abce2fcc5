package dev.kgpu.exporter.http;

import dev.kgpu.exporter.testing.Await;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.sim.prometheus.ExpositionParser;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.zip.GZIPInputStream;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/** The HTTP adapter on the running exporter (mock NVML, default profile, 1 s interval). */
@QuarkusTest
class MetricsEndpointTest {

    @Test
    void servesDcgmExportersTextFormat() {
        Response response = given().get("/metrics");

        response.then().statusCode(200).header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        var families = ExpositionParser.parse(response.asString());
        assertThat(families).containsKeys("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_XID_ERRORS");
        assertThat(families.get("DCGM_FI_DEV_GPU_TEMP").samples().getFirst().labels())
                .containsEntry("Hostname", "test-node").containsKey("DCGM_FI_DRIVER_VERSION");
    }

    @Test
    void servesOpenMetricsWhenAskedAndGzipWhenAccepted() throws Exception {
        given().header("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
                .get("/metrics").then().statusCode(200)
                .header("Content-Type", "application/openmetrics-text; version=1.0.0; charset=utf-8")
                .body(containsString("# EOF\n"));

        byte[] zipped = given().header("Accept-Encoding", "gzip").config(io.restassured.RestAssured.config()
                        .decoderConfig(io.restassured.config.DecoderConfig.decoderConfig().noContentDecoders()))
                .get("/metrics").then().statusCode(200).header("Content-Encoding", "gzip").extract().asByteArray();
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(zipped))) {
            assertThat(new String(in.readAllBytes())).contains("# TYPE DCGM_FI_DEV_GPU_TEMP gauge");
        }
    }

    @Test
    void healthEndpointsAnswer() {
        given().get("/health").then().statusCode(200).body(equalTo("OK"));
        given().get("/q/health/live").then().statusCode(200);
        // ready while the last collection is younger than three intervals: await it, as a loaded machine may
        // delay the collection thread
        Await.until("readiness UP", Duration.ofSeconds(20), () -> given().get("/q/health/ready").statusCode() == 200);
    }

    @Test
    void theExportersOwnMetricsAreOnQMetrics() {
        given().get("/metrics").then().statusCode(200);
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("kgpu_exporter_scrape_duration_seconds_count"))
                .body(containsString("kgpu_exporter_collection_duration_seconds_count"))
                .body(containsString("kgpu_exporter_snapshot_series"));
    }

    @Test
    void anXidFromNvmlsEventStreamBecomesTheLastXid() {
        String uuid;
        try (Nvml nvml = Nvml.open()) {
            uuid = nvml.device(0).uuid();
        }
        MockNvml.load().injectXid(uuid, 79);

        String line = Await.until("DCGM_FI_DEV_XID_ERRORS to show XID 79", Duration.ofSeconds(20), () -> {
            var samples = ExpositionParser.parse(given().get("/metrics").asString()).get("DCGM_FI_DEV_XID_ERRORS").samples();
            return samples.stream().filter(s -> "79".equals(s.value())).findFirst().orElse(null);
        }).labels().toString();
        assertThat(line).contains("err_code=79").contains("err_msg=GPU has fallen off the bus");
    }
}
