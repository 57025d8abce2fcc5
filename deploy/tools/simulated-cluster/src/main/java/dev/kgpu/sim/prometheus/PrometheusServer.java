package dev.kgpu.sim.prometheus;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
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
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A real Prometheus server (Debian's {@code prometheus} package, which {@code .ci/run} installs) for tests: it
 * scrapes the given targets every second, evaluates the given rule files every second, listens on a free
 * loopback port and answers the HTTP API. Shared by every module whose series Prometheus must read (the
 * exporter's, the validator's node-status exporter's).
 *
 * <pre>{@code
 * try (PrometheusServer prometheus = PrometheusServer.start(dir, "kgpu-exporter", List.of("127.0.0.1:9400"), List.of())) {
 *     String body = prometheus.awaitQuery("DCGM_FI_DEV_GPU_TEMP", b -> b.contains("\"result\":[{"), Duration.ofSeconds(90));
 * }
 * }</pre>
 */
public final class PrometheusServer implements AutoCloseable {

    // HTTP/1.1: once, under load, the JDK client's h2c upgrade left a send waiting past its 10 s timeout
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final Process process;
    private final String api;
    private final Path log;

    private PrometheusServer(Process process, String api, Path log) {
        this.process = process;
        this.api = api;
        this.log = log;
    }

    /** An installed Prometheus tool ({@code prometheus}, {@code promtool}); fails the test naming the package when missing. */
    public static Path tool(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String folder : (path + File.pathSeparator + "/usr/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(folder, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError(name + " is not installed: install Debian's prometheus package"
                + " (apt-get install -y prometheus), which .ci/run installs");
    }

    /** {@code promtool check rules}: fails the test with promtool's output unless the rule file is valid. */
    public static void checkRules(Path ruleFile) throws IOException, InterruptedException {
        Process promtool = new ProcessBuilder(tool("promtool").toString(), "check", "rules", ruleFile.toString())
                .redirectErrorStream(true).start();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!promtool.waitFor(60, TimeUnit.SECONDS) || promtool.exitValue() != 0) {
            promtool.destroyForcibly();
            throw new AssertionError("promtool check rules " + ruleFile + " failed: " + output);
        }
    }

    /**
     * Starts Prometheus in {@code dir} (its configuration, data and {@code prometheus.log}).
     *
     * @param job       the job name of the targets
     * @param targets   {@code host:port} of each target, scraped at {@code /metrics}
     * @param ruleFiles Prometheus rule files to evaluate
     */
    public static PrometheusServer start(Path dir, String job, List<String> targets, List<Path> ruleFiles) throws IOException {
        return start(dir, """
                  - job_name: %s
                    scrape_interval: 1s
                    scrape_timeout: 1s
                    metrics_path: /metrics
                    static_configs:
                      - targets: [%s]
                """.formatted(job, targets.stream().map(t -> "'" + t + "'").collect(Collectors.joining(", "))), ruleFiles);
    }

    /**
     * Starts Prometheus in {@code dir} with {@code scrapeConfigs}, the YAML list items under {@code scrape_configs:}
     * (indented by two spaces), for jobs the other form cannot say (TLS, basic auth, several jobs).
     */
    public static PrometheusServer start(Path dir, String scrapeConfigs, List<Path> ruleFiles) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files: [%s]
                scrape_configs:
                """.formatted(ruleFiles.stream().map(f -> "'" + f + "'").collect(Collectors.joining(", ")))
                + scrapeConfigs);
        Process process = new ProcessBuilder(tool("prometheus").toString(),
                "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        return new PrometheusServer(process, "http://127.0.0.1:" + port + "/api/v1/", dir.resolve("prometheus.log"));
    }

    /** What Prometheus logged, for failure messages. */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** {@code GET /api/v1/<path>}: the JSON body (fails on anything but 200). */
    public String get(String path) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(api + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new AssertionError(api + path + " answered " + response.statusCode() + ": " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An instant query's JSON body. */
    public String query(String promql) {
        return get("query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    }

    /** Polls {@code promql} until its body satisfies {@code done}; fails with the last body after {@code timeout}. */
    public String awaitQuery(String promql, Predicate<String> done, Duration timeout) {
        return await("the query " + promql, () -> query(promql), done, timeout);
    }

    /** Polls {@code GET /api/v1/<path>} until its body satisfies {@code done}. */
    public String awaitGet(String path, Predicate<String> done, Duration timeout) {
        return await(path, () -> get(path), done, timeout);
    }

    private static String await(String what, java.util.function.Supplier<String> read, Predicate<String> done,
                                Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> last = new ArrayList<>(List.of("(no answer)"));
        while (true) {
            try {
                String body = read.get();
                if (done.test(body)) {
                    return body;
                }
                last.set(0, body);
            } catch (RuntimeException | AssertionError e) {
                last.set(0, e.toString()); // Prometheus still starting: no answer, or 503 until its storage is ready
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; last answer: " + last.getFirst());
            }
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
