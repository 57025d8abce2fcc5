package dev.kgpu.exporter.testing;

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
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * A real Prometheus server (Debian's {@code prometheus} package, which {@code .ci/run} installs) on a free
 * loopback port with its own data folder, scraping what its {@code scrape_configs} name every second; and
 * its HTTP API. The test fails, not skips, without the package.
 */
public final class PrometheusServer implements AutoCloseable {

    private final Process process;
    private final String api;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PrometheusServer(Process process, String api, Path log) {
        this.process = process;
        this.api = api;
        this.log = log;
    }

    /** {@code name} from the PATH (or /usr/bin); fails the test when it is not installed. */
    public static Path tool(String name) {
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

    /**
     * Starts Prometheus in {@code dir} with {@code scrapeConfigs}, the YAML list items under
     * {@code scrape_configs:} (indented by two spaces), scraping and evaluating every second.
     */
    public static PrometheusServer start(Path dir, String scrapeConfigs) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                """ + scrapeConfigs);
        Path log = dir.resolve("prometheus.log");
        Process process = new ProcessBuilder(tool("prometheus").toString(),
                "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new PrometheusServer(process, "http://127.0.0.1:" + port + "/api/v1/", log);
    }

    /** {@code /api/v1/query?query=...}: the JSON answer (status 200 checked). */
    public String query(String promql) {
        return get("query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    }

    /** {@code /api/v1/<path>}: the JSON answer (status 200 checked). */
    public String get(String path) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(api + path))
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

    /** Prometheus' own log, for failure messages. */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
