package dev.kgpu.exporter.http;

import dev.kgpu.exporter.testing.Await;
import dev.kgpu.sim.prometheus.PrometheusServer;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exporter against Prometheus' own tools (Debian's {@code prometheus} package, which {@code .ci/run}
 * installs): {@code promtool check metrics} parses the exposition; a real Prometheus server scrapes
 * {@code /metrics} (it asks for OpenMetrics first) and answers queries for the series, and every query of
 * NVIDIA's Grafana dashboard 12239, in both of its revisions, has data (failsafe gives this JVM the mock's
 * dgx-h100 profile: 8 H100s with GPM).
 */
@QuarkusTest
class PrometheusScrapeIT {

    /** Lint findings that dcgm-exporter's own names cause and compatibility requires. */
    private static final List<Pattern> ACCEPTED_LINT = List.of(
            Pattern.compile("^DCGM_[A-Z0-9_]+ counter metrics should have \"_total\" suffix$"),
            Pattern.compile("^DCGM_[A-Z0-9_]+ label names should be written in 'snake_case' not 'camelCase'$"),
            Pattern.compile("^DCGM_[A-Z0-9_]+_COUNTER metric name should not include type 'counter'$"));

    /** One Prometheus for the class's tests, scraping the exporter under test. */
    private static PrometheusServer prometheus;
    private static Path prometheusDir;

    @TestHTTPResource("/metrics")
    URL metrics;

    // HTTP/1.1: once, under load, the JDK client's h2c upgrade left a send waiting past its 10 s timeout
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void startPrometheus() throws IOException {
        if (prometheus == null) {
            prometheusDir = Files.createTempDirectory("kgpu-exporter-prometheus");
            prometheus = PrometheusServer.start(prometheusDir, "kgpu-exporter",
                    List.of(metrics.getHost() + ":" + metrics.getPort()), List.of());
        }
    }

    @AfterAll
    static void stopPrometheus() throws IOException, InterruptedException {
        if (prometheus != null) {
            prometheus.close();
            prometheus = null;
            try (var files = Files.walk(prometheusDir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(url).isEqualTo(200);
        return response.body();
    }

    @Test
    void promtoolChecksTheExposition() throws Exception {
        Path exposition = Files.createTempFile("kgpu-exporter", ".txt");
        Files.writeString(exposition, get(metrics.toString()));
        Process promtool = new ProcessBuilder(PrometheusServer.tool("promtool").toString(), "check", "metrics")
                .redirectInput(exposition.toFile()).redirectErrorStream(true).start();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Files.delete(exposition);

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
        String temps = Await.until("Prometheus to hold DCGM_FI_DEV_GPU_TEMP", Duration.ofSeconds(90), () -> {
            String body = prometheus.query("DCGM_FI_DEV_GPU_TEMP");
            return body.contains("\"__name__\":\"DCGM_FI_DEV_GPU_TEMP\"") ? body : null;
        });
        // whichever node the mock simulates here (failsafe gives its JVM the dgx-h100 profile), Prometheus
        // holds the model the exporter serves
        String model = modelOfGpu0(get(metrics.toString()));
        assertThat(temps).contains("\"job\":\"kgpu-exporter\"").contains("\"modelName\":\"" + model + "\"")
                .contains("\"Hostname\":\"test-node\"").contains("\"gpu\":\"0\"").contains("\"device\":\"nvidia0\"");
        assertThat(prometheus.query("up{job=\"kgpu-exporter\"}")).contains("\"value\":[").contains(",\"1\"]");
        assertThat(prometheus.query("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"))
                .as("a counter keeps its name under OpenMetrics").contains("\"__name__\":\"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION\"");
        String metadata = Await.until("metadata of DCGM_FI_DEV_GPU_TEMP", Duration.ofSeconds(30), () -> {
            String body = prometheus.get("metadata?metric=DCGM_FI_DEV_GPU_TEMP");
            return body.contains("gauge") ? body : null;
        });
        assertThat(metadata).contains("\"help\":\"GPU temperature (in C).\"");
    }

    /** {@code $var}, {@code ${var}} and {@code [[var]]} in a panel's query. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)}|\\$(\\w+)|\\[\\[(\\w+)]]");
    private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((?:(.+),\\s*)?(\\w+)\\)$");

    @Test
    void everyQueryOfDashboard12239HasDataInBothRevisions() throws Exception {
        Path grafana = Path.of("src", "test", "resources", "upstream", "dcgm-exporter", "grafana");
        List<Path> revisions;
        try (var files = Files.list(grafana)) {
            revisions = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(revisions).as("dashboard 12239, revisions 1 and 2").hasSize(2);
        Map<String, Integer> seriesByQuery = new LinkedHashMap<>();
        for (Path revision : revisions) {
            JsonObject dashboard = new JsonObject(Files.readString(revision));
            assertThat(dashboard.getInteger("gnetId")).isEqualTo(12239);
            // the variables, resolved as Grafana resolves them: every value for "All", else the first
            Map<String, String> variables = new LinkedHashMap<>();
            for (Object item : dashboard.getJsonObject("templating").getJsonArray("list")) {
                JsonObject variable = (JsonObject) item;
                if (!"query".equals(variable.getString("type"))) {
                    continue;
                }
                String query = variable.getValue("query") instanceof JsonObject q ? q.getString("query")
                        : variable.getString("query");
                Set<String> values = Await.until(revision.getFileName() + " variable " + variable.getString("name"),
                        Duration.ofSeconds(90), () -> {
                            Set<String> found = labelValues(query);
                            return found.isEmpty() ? null : found;
                        });
                seriesByQuery.put(revision.getFileName() + " variable $" + variable.getString("name") + ": " + query,
                        values.size());
                variables.put(variable.getString("name"), variable.getBoolean("includeAll", false)
                        ? values.stream().map(v -> v.replaceAll("([.\\\\+*?\\[^\\]$(){}|])", "\\\\\\\\$1"))
                        .collect(Collectors.joining("|", "(", ")"))
                        : values.iterator().next());
            }
            for (String expression : expressions(dashboard.getJsonArray("panels"))) {
                String promql = substitute(expression, variables);
                int series = Await.until(revision.getFileName() + " query " + promql, Duration.ofSeconds(90), () -> {
                    JsonArray result = new JsonObject(prometheus.query(promql)).getJsonObject("data").getJsonArray("result");
                    return result.isEmpty() ? null : result.size();
                });
                seriesByQuery.put(revision.getFileName() + " " + expression, series);
            }
        }
        seriesByQuery.forEach((query, series) -> System.out.printf("dashboard 12239: %d series for %s%n", series, query));
        assertThat(seriesByQuery).hasSizeGreaterThanOrEqualTo(16 + 4);
    }

    /** Prometheus' answer to a Grafana {@code label_values(...)} query. */
    private static Set<String> labelValues(String query) {
        Matcher m = LABEL_VALUES.matcher(query.strip());
        assertThat(m.matches()).as("a label_values() query: " + query).isTrue();
        String path = "label/" + m.group(2) + "/values"
                + (m.group(1) == null ? "" : "?match[]=" + java.net.URLEncoder.encode(m.group(1), StandardCharsets.UTF_8));
        JsonArray data = new JsonObject(prometheus.get(path)).getJsonArray("data");
        Set<String> values = new TreeSet<>();
        data.forEach(v -> values.add((String) v));
        return values;
    }

    private static String substitute(String expression, Map<String, String> variables) {
        Matcher m = VARIABLE.matcher(expression);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
            String value = variables.get(name);
            assertThat(value).as("variable $" + name + " of " + expression).isNotNull();
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Every target expression of every panel, rows' nested panels included. */
    private static List<String> expressions(JsonArray panels) {
        Set<String> found = new LinkedHashSet<>();
        for (Object item : panels) {
            JsonObject panel = (JsonObject) item;
            for (Object target : panel.getJsonArray("targets", new JsonArray())) {
                String expr = ((JsonObject) target).getString("expr");
                if (expr != null) {
                    found.add(expr);
                }
            }
            if (panel.containsKey("panels")) {
                found.addAll(expressions(panel.getJsonArray("panels")));
            }
        }
        return List.copyOf(found);
    }

    private static String modelOfGpu0(String exposition) {
        Matcher m = Pattern.compile("^DCGM_FI_DEV_GPU_TEMP\\{gpu=\"0\",[^}]*modelName=\"([^\"]+)\"", Pattern.MULTILINE)
                .matcher(exposition);
        assertThat(m.find()).as("DCGM_FI_DEV_GPU_TEMP of gpu 0 in the exposition").isTrue();
        return m.group(1);
    }
}
