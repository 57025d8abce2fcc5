package dev.kgpu.plugin.app;

import dev.kgpu.agent.Launch;
import dev.kgpu.plugin.deviceplugin.DevicePluginStatus;
import dev.kgpu.plugin.settings.PluginSettings;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;

import static dev.kgpu.plugin.testing.Await.until;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

/**
 * The Quarkus application (mock NVML, default profile rtx3060), started from its settings as
 * {@code PluginMain} starts it (a {@code @QuarkusTest} does not run the entry point; {@code PackagedPluginIT}
 * runs it whole): it starts without a kubelet, serves and reports live but not ready, registers once a
 * kubelet appears, and counts what it does at /q/metrics.
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PluginApplicationTest {

    /** %test.KUBELET_SOCKET in application.properties. */
    static final Path DEVICE_PLUGINS = Path.of("target/kgpu-test/device-plugins");
    KubeletSimulator kubelet;

    @Inject
    PluginWiring plugin;

    @BeforeAll
    void startThePlugin() {
        String[] args = {};
        Function<String, String> environment = PluginEnvironment.get();
        plugin.start(new Launch.Launched<>(PluginSettings.load(args, environment), () -> PluginSettings.load(args, environment)));
    }

    @AfterAll
    void stopThePluginAndTheKubelet() {
        assertThat(plugin.stop()).isZero();
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
        until(() -> plugin.status().live() && plugin.status().frontEnds().stream()
                .anyMatch(f -> f instanceof DevicePluginStatus dp && !dp.resources().isEmpty()), "the plugin serving nvidia.com/gpu");
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
                .body(containsString("kgpu_plugin_registrations_total{resource=\"nvidia.com/gpu\",result=\"success\"}"))
                // at 0 before the first failure or transition, so that increase() counts it
                .body(containsString("kgpu_plugin_allocations_total{resource=\"nvidia.com/gpu\",result=\"failure\"} 0.0"))
                .body(containsString("kgpu_plugin_health_transitions_total{health=\"Unhealthy\"} 0.0"));
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
