package dev.kgpu.exporter;

import dev.kgpu.exporter.testing.Await;
import dev.kgpu.exporter.testing.ExporterProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged exporter as a process, through what only a process shows: SIGHUP re-reading the counters
 * file (a bad file keeps the running counters, with one line), starting without NVML (up, not ready,
 * {@code /metrics} 503 as nothing was collected, retrying, one line, then ready once the library appears), connections that send nothing being closed
 * by the idle timeout, and SIGTERM ending it with status 0. About 30 s.
 */
class LifecycleIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void sighupReloadsTheCountersFileAndABadFileKeepsTheRunningOne() throws Exception {
        Path counters = dir.resolve("counters.csv");
        Files.writeString(counters, "DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n");
        int port = ExporterProcess.freePort();
        try (ExporterProcess exporter = ExporterProcess.start(dir, Map.of("DCGM_EXPORTER_COLLECTORS", counters.toString(),
                "DCGM_EXPORTER_LISTEN", "127.0.0.1:" + port, "QUARKUS_HTTP_IDLE_TIMEOUT", "2s"))) {
            exporter.awaitOutput("serving ", WAIT);
            String url = "http://127.0.0.1:" + port;
            assertThat(get(url + "/metrics").body()).contains("# TYPE DCGM_FI_DEV_GPU_TEMP gauge")
                    .doesNotContain("DCGM_FI_DEV_SM_CLOCK");

            Files.writeString(counters, "DCGM_FI_DEV_NOT_A_FIELD, gauge, nothing.\n");
            exporter.signal("HUP");
            exporter.awaitOutput("SIGHUP: keeping the running counters", WAIT);
            assertThat(exporter.output().lines().filter(line -> line.contains("SIGHUP")).toList()).singleElement()
                    .asString().contains("DCGM_FI_DEV_NOT_A_FIELD");
            assertThat(exporter.output()).doesNotContain("\tat ");
            assertThat(get(url + "/metrics").body()).contains("DCGM_FI_DEV_GPU_TEMP{");
            assertThat(get(url + "/q/health/ready").statusCode()).isEqualTo(200);

            Files.writeString(counters, "DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n"
                    + "DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).\n");
            exporter.signal("HUP");
            Await.until("the SM clock in /metrics after the second SIGHUP", WAIT,
                    () -> get(url + "/metrics").body().contains("DCGM_FI_DEV_SM_CLOCK{"));
            assertThat(exporter.alive()).isTrue();

            // a connection that sends nothing, and one that stops in the middle of its header, are closed
            // (QUARKUS_HTTP_IDLE_TIMEOUT is 10 s by default, 2 s here)
            assertThat(closedByServer(port, "")).isTrue();
            assertThat(closedByServer(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")).isTrue();

            // the kubelet's stop: a clean one, status 0 as dcgm-exporter's (not the JVM's 143)
            exporter.signal("TERM");
            assertThat(exporter.awaitExit(WAIT)).as(exporter.output()).isZero();
        }
    }

    @Test
    void withoutNvmlItStaysUpNotReadyAndRetriesUntilTheLibraryAppears() throws Exception {
        Path library = dir.resolve("driver/libnvidia-ml.so.1");
        int port = ExporterProcess.freePort();
        try (ExporterProcess exporter = ExporterProcess.start(dir, Map.of("KGPU_NVML_LIBRARY", library.toString(),
                "DCGM_EXPORTER_LISTEN", "127.0.0.1:" + port))) {
            String url = "http://127.0.0.1:" + port;
            exporter.awaitOutput("NVML is not available", WAIT);
            Await.until("the HTTP server", WAIT, () -> get(url + "/q/health/live").statusCode() == 200);
            assertThat(get(url + "/q/health/ready").statusCode()).isEqualTo(503);
            assertThat(get(url + "/health").statusCode()).isEqualTo(200);
            // nothing collected yet: a failed scrape for Prometheus, not a successful one with no series
            HttpResponse<String> notYet = get(url + "/metrics");
            assertThat(notYet.statusCode()).as(notYet.body()).isEqualTo(503);
            assertThat(notYet.body()).isEqualTo("no collection yet");
            Await.until("a second try to open NVML", WAIT, () -> get(url + "/q/metrics").body()
                    .lines().anyMatch(line -> line.startsWith("kgpu_exporter_nvml_open_failures_total ")
                            && Double.parseDouble(line.substring(line.indexOf(' ') + 1)) >= 2));
            List<String> nvmlLines = exporter.output().lines().filter(line -> line.contains("NVML is")).toList();
            assertThat(nvmlLines).singleElement().asString().contains("could not load libnvidia-ml.so.1");
            // one line for the state, none per failing probe (SmallRye Health's SRHCK01001 at INFO)
            assertThat(exporter.output()).doesNotContain("\tat ").doesNotContain("Exception").doesNotContain("SRHCK01001");

            Files.createDirectories(library.getParent());
            Files.copy(Path.of(System.getenv("KGPU_NVML_LIBRARY")), library);
            Await.until("ready once the library appears", WAIT, () -> get(url + "/q/health/ready").statusCode() == 200);
            assertThat(get(url + "/metrics").statusCode()).isEqualTo(200);
            assertThat(get(url + "/metrics").body()).contains("DCGM_FI_DEV_GPU_TEMP{");
            assertThat(exporter.output()).contains("NVML is available again");
        }
    }

    /** Whether the server closes a connection that sent {@code sent} and then nothing (read returns -1). */
    private static boolean closedByServer(int port, String sent) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout((int) WAIT.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(sent.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            // a server may answer a half request with an error before closing; read to the end
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        }
    }

    private static HttpResponse<String> get(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
