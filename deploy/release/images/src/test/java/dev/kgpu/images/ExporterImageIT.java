package dev.kgpu.images;

import dev.kgpu.exporter.testing.Await;
import dev.kgpu.sim.podresources.FakePodResourcesServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exporter's image on an 8 x A100 mock node: started as its image starts it (entrypoint, non-root user,
 * its AOT cache), with a read-only root, no capabilities, the mock libnvidia-ml.so.1 mounted where
 * {@code KGPU_NVML_LIBRARY} names it and the kubelet's pod-resources folder mounted read-only, as the chart
 * mounts it.
 */
@Images.WhenBuilt("exporter")
class ExporterImageIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private static Path kubelet;
    private static FakePodResourcesServer podResources;
    private static ImageContainer exporter;
    private static int port;

    @BeforeAll
    static void start() throws IOException {
        kubelet = Files.createTempDirectory("kgpu-exporter-image");
        Path folder = kubelet.resolve("pod-resources");
        podResources = FakePodResourcesServer.start(folder.resolve("kubelet.sock"));
        // the kubelet's socket is root's; the image's nonroot user may use this one
        Files.setPosixFilePermissions(kubelet, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(folder.resolve("kubelet.sock"), PosixFilePermissions.fromString("rwxrwxrwx"));
        port = Images.freePort();
        exporter = ImageContainer.of("exporter")
                .mockNvml("dgx-a100")
                .bind(folder, "/var/lib/kubelet/pod-resources", true)
                .env("DCGM_EXPORTER_LISTEN", ":" + port)
                .env("DCGM_EXPORTER_KUBERNETES", "true")
                .env("DCGM_EXPORTER_INTERVAL", "1000")
                .env("NODE_NAME", "image-node")
                .start();
    }

    @AfterAll
    static void stop() {
        if (exporter != null) {
            exporter.close();
        }
        if (podResources != null) {
            podResources.close();
        }
        ImageContainer.delete(kubelet);
    }

    @Test
    void servesTheMockNodesMetricsWithPodAttribution() {
        String metrics = Await.until("/metrics with 8 GPUs", WAIT, () -> {
            String body = get("/metrics");
            return body != null && body.lines().filter(l -> l.startsWith("DCGM_FI_DEV_GPU_TEMP{")).count() == 8 ? body : null;
        });
        assertThat(metrics).contains("modelName=\"NVIDIA A100-SXM4-80GB\"").contains("Hostname=\"image-node\"");

        String uuid = metrics.lines().filter(l -> l.startsWith("DCGM_FI_DEV_GPU_TEMP{")).findFirst().orElseThrow()
                .replaceAll(".*UUID=\"([^\"]+)\".*", "$1");
        podResources.assign("trainer-0", "ml", "main", "nvidia.com/gpu", List.of(uuid));
        String attributed = Await.until("the pod's labels on " + uuid, WAIT, () -> {
            String body = get("/metrics");
            return body != null && body.contains("pod=\"trainer-0\"") ? body : null;
        });
        assertThat(attributed).contains("namespace=\"ml\"").contains("container=\"main\"");
    }

    @Test
    void answersItsProbes() {
        Await.until("/q/health/ready to answer UP", WAIT, () -> Http.up(port, "/q/health/ready"));
        assertThat(Http.up(port, "/q/health/live")).isTrue();
        assertThat(get("/health")).isEqualTo("OK");
    }

    @Test
    void runsAsNonrootWithoutCapabilitiesAndWithItsAotCache() {
        Await.until("the exporter to serve", WAIT, () -> get("/health") != null);
        var status = exporter.processStatus();
        assertThat(status.get("Uid")).startsWith("65532\t");
        assertThat(status.get("CapEff")).isEqualTo("0000000000000000");
        assertThat(status.get("CapBnd")).isEqualTo("0000000000000000");
        assertThat(status.get("NoNewPrivs")).isEqualTo("1");
        assertThat(exporter.maps(Images.mappedFile("exporter"))).as("the agent runs from %s", Images.mappedFile("exporter")).isTrue();
        assertThat(exporter.output()).doesNotContain("AOT cache").doesNotContain("Exception");
    }

    private static String get(String path) {
        return Http.get(port, path);
    }
}
