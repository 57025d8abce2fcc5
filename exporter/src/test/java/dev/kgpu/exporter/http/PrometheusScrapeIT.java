package dev.kgpu.exporter.http;

import dev.kgpu.testing.PrometheusServer;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exporter against Prometheus' own tools (Debian's {@code prometheus} package, which {@code .ci/run}
 * installs): {@code promtool check metrics} parses the exposition, and a real Prometheus server
 * ({@link PrometheusServer}) scrapes {@code /metrics} (it asks for OpenMetrics first) and answers queries for the
 * series.
 */
@QuarkusTest
class PrometheusScrapeIT {

    /** Lint findings that dcgm-exporter's own names cause and compatibility requires. */
    private static final List<Pattern> ACCEPTED_LINT = List.of(
            Pattern.compile("^DCGM_[A-Z0-9_]+ counter metrics should have \"_total\" suffix$"),
            Pattern.compile("^DCGM_[A-Z0-9_]+ label names should be written in 'snake_case' not 'camelCase'$"),
            Pattern.compile("^DCGM_[A-Z0-9_]+_COUNTER metric name should not include type 'counter'$"));

    @TestHTTPResource("/metrics")
    URL metrics;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(url).isEqualTo(200);
        return response.body();
    }

    @Test
    void promtoolChecksTheExposition() throws Exception {
        Path exposition = dir.resolve("metrics.txt");
        Files.writeString(exposition, get(metrics.toString()));
        Process promtool = new ProcessBuilder(PrometheusServer.tool("promtool").toString(), "check", "metrics")
                .redirectInput(exposition.toFile()).redirectErrorStream(true).start();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();

        // 0: clean; 3: lint findings only; 1: the exposition did not parse
        assertThat(promtool.exitValue()).as(output).isIn(0, 3);
        List<String> unexpected = new ArrayList<>();
        for (String line : output.strip().split("\n")) {
            if (!line.isBlank() && ACCEPTED_LINT.stream().noneMatch(p -> p.matcher(line.strip()).matches())) {
                unexpected.add(line);
            }
        }
        assertThat(unexpected).as("promtool findings beyond dcgm-exporter's own names").isEmpty();
    }

    @Test
    void aPrometheusServerScrapesTheExporterAndAnswersQueries() throws Exception {
        try (PrometheusServer prometheus = PrometheusServer.start(dir, "kgpu-exporter",
                List.of(metrics.getHost() + ":" + metrics.getPort()), List.of())) {
            String temps = prometheus.awaitQuery("DCGM_FI_DEV_GPU_TEMP",
                    body -> body.contains("\"__name__\":\"DCGM_FI_DEV_GPU_TEMP\""), Duration.ofSeconds(90));
            // whichever node the mock simulates here (failsafe gives its JVM the dgx-h100 profile), Prometheus
            // holds the model the exporter serves
            String model = modelOfGpu0(get(metrics.toString()));
            assertThat(temps).contains("\"job\":\"kgpu-exporter\"").contains("\"modelName\":\"" + model + "\"")
                    .contains("\"Hostname\":\"test-node\"").contains("\"gpu\":\"0\"").contains("\"device\":\"nvidia0\"");
            assertThat(prometheus.query("up{job=\"kgpu-exporter\"}")).contains("\"value\":[").contains(",\"1\"]");
            assertThat(prometheus.query("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"))
                    .as("a counter keeps its name under OpenMetrics").contains("\"__name__\":\"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION\"");
            String metadata = prometheus.awaitGet("metadata?metric=DCGM_FI_DEV_GPU_TEMP", body -> body.contains("gauge"),
                    Duration.ofSeconds(30));
            assertThat(metadata).contains("\"help\":\"GPU temperature (in C).\"");
        }
    }

    private static String modelOfGpu0(String exposition) {
        Matcher m = Pattern.compile("^DCGM_FI_DEV_GPU_TEMP\\{gpu=\"0\",[^}]*modelName=\"([^\"]+)\"", Pattern.MULTILINE)
                .matcher(exposition);
        assertThat(m.find()).as("DCGM_FI_DEV_GPU_TEMP of gpu 0 in the exposition").isTrue();
        return m.group(1);
    }
}
