package dev.kgpu.exporter.podresources;

import dev.kgpu.exporter.pods.ContainerDevices;
import dev.kgpu.exporter.pods.PodResourcesException;
import dev.kgpu.sim.podresources.FakePodResourcesServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PodResourcesClientTest {

    @TempDir
    Path dir;

    @Test
    void listsWhatTheKubeletAssigned() throws Exception {
        try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"));
             PodResourcesClient client = new PodResourcesClient(kubelet.socket(), Duration.ofSeconds(5))) {
            kubelet.assign("job-0", "ml", "trainer", "nvidia.com/gpu", List.of("GPU-a", "GPU-b"))
                    .assign("job-0", "ml", "trainer", "example.com/nic", List.of("nic0"))
                    .assign("web", "default", "app", "nvidia.com/mig-1g.10gb", List.of("MIG-x"));

            assertThat(client.list()).containsExactly(
                    new ContainerDevices("job-0", "ml", "trainer", "nvidia.com/gpu", List.of("GPU-a", "GPU-b")),
                    new ContainerDevices("job-0", "ml", "trainer", "example.com/nic", List.of("nic0")),
                    new ContainerDevices("web", "default", "app", "nvidia.com/mig-1g.10gb", List.of("MIG-x")));
            assertThat(kubelet.requestCount()).isEqualTo(1);
        }
    }

    @Test
    void aMissingSocketIsReportedAsSuch() {
        try (PodResourcesClient client = new PodResourcesClient(dir.resolve("absent.sock"), Duration.ofSeconds(1))) {
            assertThatThrownBy(client::list).isInstanceOf(PodResourcesException.SocketMissing.class)
                    .hasMessageContaining("absent.sock");
        }
    }

    @Test
    void reachesARestartedKubeletAtTheNextCall() throws Exception {
        try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"));
             PodResourcesClient client = new PodResourcesClient(kubelet.socket(), Duration.ofSeconds(5))) {
            kubelet.assign("a", "ns", "c", "nvidia.com/gpu", List.of("GPU-1"));
            assertThat(client.list()).hasSize(1);

            kubelet.stop();
            assertThatThrownBy(client::list).isInstanceOf(PodResourcesException.SocketMissing.class);

            kubelet.assign("b", "ns", "c", "nvidia.com/gpu", List.of("GPU-2"));
            kubelet.restart();
            assertThat(client.list()).extracting(ContainerDevices::pod).containsExactly("a", "b");
        }
    }

    @Test
    void aRecreatedSocketIsRedialledEvenWithoutAFailedCallInBetween() throws Exception {
        try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"));
             PodResourcesClient client = new PodResourcesClient(kubelet.socket(), Duration.ofSeconds(5))) {
            assertThat(client.list()).isEmpty();
            kubelet.restart();
            kubelet.assign("after", "ns", "c", "nvidia.com/gpu", List.of("GPU-1"));
            assertThat(client.list()).extracting(ContainerDevices::pod).containsExactly("after");
        }
    }

    @Test
    void theKubeletsRateLimitAnswersResourceExhausted() throws Exception {
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
        InstantSource clock = now::get;
        try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"), clock);
             PodResourcesClient client = new PodResourcesClient(kubelet.socket(), Duration.ofSeconds(5))) {
            for (int i = 0; i < FakePodResourcesServer.DEFAULT_BURST; i++) {
                client.list();
            }
            assertThatThrownBy(client::list).isInstanceOf(PodResourcesException.RateLimited.class)
                    .hasMessageContaining("RESOURCE_EXHAUSTED").hasMessageContaining("rejected by rate limit");
            assertThat(kubelet.rejectedCount()).isEqualTo(1);

            now.set(now.get().plusMillis(10)); // 100 per second: one token back
            assertThat(client.list()).isEmpty();
        }
    }
}
