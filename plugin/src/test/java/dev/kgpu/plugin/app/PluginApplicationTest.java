package dev.kgpu.plugin.app;

import dev.kgpu.plugin.testing.kubelet.KubeletSimulator;
import dev.kgpu.plugin.testing.kubelet.PodAdmission;
import dev.kgpu.plugin.testing.kubelet.PodSpec;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.file.Path;
import java.time.Duration;

import static dev.kgpu.plugin.testing.Await.until;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

/**
 * The Quarkus application as the DaemonSet runs it (mock NVML, default profile rtx3060): it starts without
 * a kubelet, serves and reports live but not ready, registers once a kubelet appears, and counts what it
 * does at /q/metrics.
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PluginApplicationTest {

    /** %test.KUBELET_SOCKET in application.properties. */
    static final Path DEVICE_PLUGINS = Path.of("target/kgpu-test/device-plugins");
    static KubeletSimulator kubelet;

    @Inject
    PluginLifecycle lifecycle;

    @AfterAll
    static void stopKubelet() {
        if (kubelet != null) {
            kubelet.close();
        }
    }

    static int status(String path) {
        return given().when().get(path).then().extract().statusCode();
    }

    @Test
    @Order(1)
    void servesAndIsLiveButNotReadyWithoutAKubelet() {
        until(() -> lifecycle.supervisor().status().live() && !lifecycle.supervisor().status().resources().isEmpty(),
                "the plugin serving nvidia.com/gpu");
        assertThat(status("/q/health/live")).isEqualTo(200);
        given().when().get("/q/health/ready").then().statusCode(503)
                .body(containsString("kubelet socket"));
    }

    @Test
    @Order(2)
    void registersWhenTheKubeletComesAndBecomesReady() {
        kubelet = KubeletSimulator.start(DEVICE_PLUGINS);

        kubelet.awaitResource("nvidia.com/gpu", r -> r.allocatable() == 1, Duration.ofSeconds(20));
        until(() -> status("/q/health/ready") == 200, "readiness");
        given().when().get("/q/metrics").then().statusCode(200)
                .body(containsString("kgpu_plugin_registrations_total{resource=\"nvidia.com/gpu\",result=\"success\"}"));
    }

    @Test
    @Order(3)
    void countsAllocations() {
        assertThat(kubelet.admit(PodSpec.of("cuda", "nvidia.com/gpu", 1))).isInstanceOf(PodAdmission.Admitted.class);

        given().when().get("/q/metrics").then().statusCode(200)
                .body(containsString("kgpu_plugin_allocations_total{resource=\"nvidia.com/gpu\",result=\"success\"} 1.0"));
        assertThat(RestAssured.port).isPositive();
    }
}
