package dev.kgpu.images;

import dev.kgpu.exporter.testing.Await;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.ResourceState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The device plugin's image on an 8 x A100 mock node: it registers with the kubelet simulator through the
 * kubelet's device-plugins folder, mounted into the container as the chart mounts it, and answers Allocate;
 * root (the folder is root's) without any capability, on a read-only root.
 */
@Images.WhenBuilt("plugin")
class PluginImageIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private static Path folder;
    private static KubeletSimulator kubelet;
    private static ImageContainer plugin;
    private static int port;

    @BeforeAll
    static void start() throws IOException {
        folder = Files.createTempDirectory("kgpu-plugin-image");
        kubelet = KubeletSimulator.start(folder.resolve("device-plugins"));
        port = Images.freePort();
        plugin = ImageContainer.of("plugin")
                .mockNvml("dgx-a100")
                .bind(folder.resolve("device-plugins"), "/var/lib/kubelet/device-plugins", false)
                .env("QUARKUS_HTTP_PORT", Integer.toString(port))
                .start();
    }

    @AfterAll
    static void stop() {
        if (plugin != null) {
            plugin.close();
        }
        if (kubelet != null) {
            kubelet.close();
        }
        ImageContainer.delete(folder);
    }

    @Test
    void registersEveryGpuAndAllocatesOne() {
        ResourceState gpus = kubelet.awaitResource("nvidia.com/gpu", r -> r.allocatable() == 8, WAIT);
        assertThat(gpus.endpoint()).isEqualTo("nvidia-gpu.sock");

        PodAdmission admission = kubelet.admit(PodSpec.of("trainer-0", "nvidia.com/gpu", 1));
        assertThat(admission).isInstanceOf(PodAdmission.Admitted.class);
        assertThat(((PodAdmission.Admitted) admission).allocation().container().envs())
                .containsKey("NVIDIA_VISIBLE_DEVICES");
    }

    @Test
    void answersItsProbesAsRootWithoutCapabilities() {
        Await.until("/q/health/ready to answer UP", WAIT, () -> Http.up(port, "/q/health/ready"));
        assertThat(Http.up(port, "/q/health/live")).isTrue();
        var status = plugin.processStatus();
        assertThat(status.get("Uid")).startsWith("0\t");
        assertThat(status.get("CapEff")).isEqualTo("0000000000000000");
        assertThat(status.get("NoNewPrivs")).isEqualTo("1");
        assertThat(plugin.maps(Images.mappedFile("plugin"))).as("the agent runs from %s", Images.mappedFile("plugin")).isTrue();
    }
}
