package dev.kgpu.exporter.http;

import dev.kgpu.exporter.testing.Await;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
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
import static org.assertj.core.api.Assertions.fail;

/**
 * The exporter against Prometheus' own tools (Debian's {@code prometheus} package, which {@code .ci/run}
 * installs): {@code promtool check metrics} parses the exposition, and a real Prometheus server scrapes
 * {@code /metrics} (it asks for OpenMetrics first) and answers queries for the series.
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

    static Path tool(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String folder : (path + File.pathSeparator + "/usr/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(folder, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return fail(name + " is not installed: install Debian's prometheus package"
                + " (apt-get install -y prometheus), which .ci/run installs");
    }

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
        Process promtool = new ProcessBuilder(tool("promtool").toString(), "check", "metrics")
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
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: kgpu-exporter
                    scrape_interval: 1s
                    scrape_timeout: 1s
                    metrics_path: /metrics
                    static_configs:
                      - targets: ['%s:%d']
                """.formatted(metrics.getHost(), metrics.getPort()));
        Process prometheus = new ProcessBuilder(tool("prometheus").toString(),
                "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        String api = "http://127.0.0.1:" + port + "/api/v1/";
        try {
            String temps = Await.until("Prometheus to hold DCGM_FI_DEV_GPU_TEMP", Duration.ofSeconds(90), () -> {
                String body = query(api, "DCGM_FI_DEV_GPU_TEMP");
                return body.contains("\"__name__\":\"DCGM_FI_DEV_GPU_TEMP\"") ? body : null;
            });
            // whichever node the mock simulates here (failsafe gives its JVM the dgx-h100 profile), Prometheus
            // holds the model the exporter serves
            String model = modelOfGpu0(get(metrics.toString()));
            assertThat(temps).contains("\"job\":\"kgpu-exporter\"").contains("\"modelName\":\"" + model + "\"")
                    .contains("\"Hostname\":\"test-node\"").contains("\"gpu\":\"0\"").contains("\"device\":\"nvidia0\"");
            assertThat(query(api, "up{job=\"kgpu-exporter\"}")).contains("\"value\":[").contains(",\"1\"]");
            assertThat(query(api, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"))
                    .as("a counter keeps its name under OpenMetrics").contains("\"__name__\":\"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION\"");
            String metadata = Await.until("metadata of DCGM_FI_DEV_GPU_TEMP", Duration.ofSeconds(30), () -> {
                String body = getUnchecked(api + "metadata?metric=DCGM_FI_DEV_GPU_TEMP");
                return body.contains("gauge") ? body : null;
            });
            assertThat(metadata).contains("\"help\":\"GPU temperature (in C).\"");
        } finally {
            prometheus.destroy();
            if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String modelOfGpu0(String exposition) {
        Matcher m = Pattern.compile("^DCGM_FI_DEV_GPU_TEMP\\{gpu=\"0\",[^}]*modelName=\"([^\"]+)\"", Pattern.MULTILINE)
                .matcher(exposition);
        assertThat(m.find()).as("DCGM_FI_DEV_GPU_TEMP of gpu 0 in the exposition").isTrue();
        return m.group(1);
    }

    private String query(String api, String promql) {
        return getUnchecked(api + "query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    }

    private String getUnchecked(String url) {
        try {
            return get(url);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
