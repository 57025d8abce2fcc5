package dev.kgpu.plugin;

import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodAllocation;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.RegistrationEvent;
import dev.kgpu.sim.kubelet.ResourceState;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

/**
 * The packaged device plugin ({@code target/quarkus-app}, run as {@code java -jar quarkus-run.jar} with
 * deploy/release/images/jvm.options) doing its real work against the kubelet simulator on an 8 × A100 mock node:
 * registration, ListAndWatch, a pod admission (GetPreferredAllocation by NVLink topology, then Allocate), an
 * XID that takes a GPU out of allocatable and its recovery, the probes and its metrics. With
 * {@code quarkus.package.jar.aot.enabled} this run is what Java's AOT cache ({@code app.aot}) is trained on.
 *
 * <p>The plugin's failsafe configuration gives the launched process {@code MOCK_NVML_PROFILE=dgx-a100} and
 * {@code MOCK_NVML_EVENTS}; {@link Kubelet} gives it the kubelet's socket.
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedPluginIT.Kubelet.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PackagedPluginIT {

    private static final String GPU = "nvidia.com/gpu";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final List<String> UUIDS = MockNvml.profile("dgx-a100").gpus().stream()
            .map(g -> MockProfile.string(g, "uuid")).toList();

    /** A kubelet's device manager on a socket folder of its own, started before the plugin. */
    public static final class Kubelet implements QuarkusTestResourceLifecycleManager {

        static volatile KubeletSimulator kubelet;
        private Path dir;

        @Override
        public Map<String, String> start() {
            try {
                dir = Files.createTempDirectory("kgpu-plugin-it");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            kubelet = KubeletSimulator.start(dir.resolve("device-plugins"));
            // read by the plugin from the environment, then from Quarkus configuration: passed as -D
            return Map.of("KUBELET_SOCKET", kubelet.socket().toString(),
                    "KGPU_HEALTH_QUIET_PERIOD", "2s",
                    "KGPU_HEALTH_CHECK_INTERVAL", "1s");
        }

        @Override
        public void stop() {
            if (kubelet != null) {
                kubelet.close();
            }
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temporary folder left behind is harmless
            }
        }
    }

    @Test
    @Order(1)
    void registersEveryGpuWithTheKubelet() {
        ResourceState gpus = Kubelet.kubelet.awaitResource(GPU, r -> r.allocatable() == 8, WAIT);

        assertThat(gpus.deviceIds()).containsExactlyInAnyOrderElementsOf(UUIDS);
        assertThat(gpus.preferredAllocationAvailable()).isTrue();
        assertThat(Kubelet.kubelet.registrations()).filteredOn(RegistrationEvent::accepted)
                .extracting(RegistrationEvent::resourceName, RegistrationEvent::endpoint)
                .contains(org.assertj.core.groups.Tuple.tuple(GPU, "nvidia-gpu.sock"));
        // the kubelet has the device list before the plugin has heard the answer to its Register call
        Await.until(() -> given().get("/q/health/ready").statusCode() == 200, WAIT, "readiness");
        given().get("/q/health/ready").then().statusCode(200).body(containsString("\"UP\""));
        given().get("/q/health/live").then().statusCode(200).body(containsString("\"UP\""));
    }

    @Test
    @Order(2)
    void admitsAPodWithTwoGpus() {
        Kubelet.kubelet.awaitResource(GPU, r -> r.allocatable() == 8, WAIT);

        PodAdmission admission = Kubelet.kubelet.admit(PodSpec.of("trainer-0", GPU, 2));

        assertThat(admission).isInstanceOf(PodAdmission.Admitted.class);
        PodAllocation allocation = ((PodAdmission.Admitted) admission).allocation();
        List<String> devices = allocation.deviceIds(GPU);
        assertThat(devices).hasSize(2).doesNotHaveDuplicates().allMatch(UUIDS::contains);
        assertThat(allocation.container().envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", String.join(",", devices));
        assertThat(Kubelet.kubelet.admit(PodSpec.of("too-big", GPU, 7))).isInstanceOf(PodAdmission.Pending.class);
        assertThat(Kubelet.kubelet.release("trainer-0")).isPresent();
    }

    @Test
    @Order(3)
    void anXidTakesAGpuOutOfAllocatableUntilItIsQuietAgain() {
        String gpu = UUIDS.get(3);
        MockNvml.appendXidToEventsFile(gpu, 94);

        ResourceState down = Kubelet.kubelet.awaitResource(GPU, r -> r.allocatable() == 7, WAIT);
        assertThat(down.unhealthyIds()).containsExactly(gpu);
        ResourceState back = Kubelet.kubelet.awaitResource(GPU, r -> r.allocatable() == 8, WAIT);
        assertThat(back.capacity()).isEqualTo(8);
    }

    @Test
    @Order(4)
    void countsWhatItDid() {
        Await.until(() -> given().get("/q/metrics").asString().contains("kgpu_plugin_health_transitions_total{health=\"Healthy\"} 1.0"),
                WAIT, "the recovery counted");
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("kgpu_plugin_registrations_total"))
                .body(containsString("kgpu_plugin_allocations_total"))
                .body(containsString("kgpu_plugin_health_transitions_total{health=\"Unhealthy\"} 1.0"));
    }
}
