package dev.kgpu.discovery.run;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.discovery.labels.ExpectedLabels;
import dev.kgpu.discovery.labels.LabelSettings;
import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.publish.NodeLabelSink;
import dev.kgpu.discovery.publish.SinkFactory;
import dev.kgpu.discovery.settings.LabelSinkKind;
import dev.kgpu.discovery.testing.TestSettings;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * The whole agent minus its entry point: mock NVML through FFM, the supervisor, the node sink against the
 * Kubernetes API test server, and the readiness probe.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
class DiscoveryEndToEndIT {

    static final String NODE = "gpu-node-e2e";
    static final InstantSource CLOCK = InstantSource.fixed(Instant.ofEpochSecond(1_700_000_000L));

    @KubernetesTestServer
    KubernetesServer server;

    @Inject
    KubernetesClient client;

    @Inject
    SinkFactory sinkFactory;

    @Inject
    PassStatus status;

    MockNvml mock = MockNvml.load();
    Supervisor<DiscoverySettings, DiscoveryHandler.Due> supervisor;

    @BeforeEach
    void nodeWithForeignLabels() {
        client.nodes().withName(NODE).delete();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                .addToLabels("kubernetes.io/hostname", NODE)
                .addToLabels("nvidia.com/gpu.deploy.device-plugin", "true")
                .endMetadata().build()).create();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (supervisor != null) {
            supervisor.stop(Duration.ofSeconds(20));
            assertThat(supervisor.awaitExit(Duration.ofSeconds(20))).hasValue(0);
        }
        mock.reset();
    }

    DiscoverySettings settings(MigStrategy strategy) {
        return builder(strategy).build();
    }

    TestSettings.Discovery builder(MigStrategy strategy) {
        return TestSettings.discovery(NODE, "kgpu")
                .sink(LabelSinkKind.NODE)
                .labels(TestSettings.labels(strategy))
                .node(Optional.empty(), Path.of("/nonexistent-sysfs"), true)
                .timing(false, Optional.empty(), new Backoff.Policy(Duration.ofMillis(20), Duration.ofMillis(200)));
    }

    Map<String, String> gpuLabels() {
        Map<String, String> labels = new TreeMap<>(client.nodes().withName(NODE).get().getMetadata().getLabels());
        labels.keySet().removeIf(key -> !key.startsWith("nvidia.com/") || key.equals("nvidia.com/gpu.deploy.device-plugin"));
        return labels;
    }

    /** The expected file of a profile, adjusted for this test's node: no sysfs, so gpu.mode=unknown, no vGPU labels, machine unknown. */
    static Map<String, String> expectedWithoutSysfs(String name) {
        Map<String, String> expected = new TreeMap<>(ExpectedLabels.read(name).asMap());
        expected.put("nvidia.com/gpu.mode", "unknown");
        expected.put("nvidia.com/gpu.machine", "unknown");
        expected.remove("nvidia.com/vgpu.present");
        return expected;
    }

    @Test
    void labelsTheNodeFollowsAMigReconfigurationAndWritesNothingWhenSteady() throws Exception {
        mock.useProfile("mig-mixed");
        supervisor = DiscoveryHandler.start(new LabelingPass(Nvml::open, LabelingPass.Sinks.of(sinkFactory), CLOCK), status,
                () -> settings(MigStrategy.MIXED), CLOCK, settings(MigStrategy.MIXED));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(gpuLabels()).containsExactlyEntriesOf(expectedWithoutSysfs("mig-mixed-mixed")));
        given().get("/q/health/ready").then().statusCode(200).body("checks[0].name", equalTo("gpu-labels"));

        // steady: a relabel reads the Node and writes nothing. The pass records its status when it is done,
        // so await that, then count what it asked of the API server.
        int before = server.getKubernetesMockServer().getRequestCount();
        PassStatus.Snapshot previous = status.current();
        supervisor.reload();
        await().atMost(Duration.ofSeconds(20)).until(() -> status.current() != previous);
        assertThat(server.getKubernetesMockServer().getRequestCount()).isEqualTo(before + 1);
        assertThat(server.getLastRequest().getMethod()).isEqualTo("GET");

        // the GPUs are reconfigured: MIG off everywhere; the mig-* labels no longer hold and go
        mock.useProfile("dgx-a100");
        supervisor.reload();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Map<String, String> expected = expectedWithoutSysfs("dgx-a100-mixed");
            assertThat(gpuLabels()).containsExactlyEntriesOf(expected);
        });
        assertThat(client.nodes().withName(NODE).get().getMetadata().getLabels())
                .containsEntry("kubernetes.io/hostname", NODE)
                .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true");
        assertThat(client.nodes().withName(NODE).get().getMetadata().getAnnotations().get(NodeLabelSink.OWNED_ANNOTATION))
                .doesNotContain("mig-1g.10gb");
    }

    @Test
    void aLostDriverWithFailOnInitErrorFalseIsNotReadyWithTheDriverlessLabelsUntilItComesBack() throws Exception {
        mock.useProfile("rtx3060");
        mock.failNext("nvmlInit_v2", dev.kgpu.nvml.NvmlReturnCode.ERROR_DRIVER_NOT_LOADED, -1);
        DiscoverySettings tolerant = builder(MigStrategy.NONE).node(Optional.empty(), Path.of("/nonexistent-sysfs"), false).build();
        supervisor = DiscoveryHandler.start(new LabelingPass(Nvml::open, LabelingPass.Sinks.of(sinkFactory), CLOCK), status,
                () -> tolerant, CLOCK, tolerant);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(gpuLabels()).containsExactlyInAnyOrderEntriesOf(Map.of(Labels.TIMESTAMP, "1700000000")));
        given().get("/q/health/ready").then().statusCode(503)
                .body(org.hamcrest.Matchers.containsString("no working driver (NVML unavailable"));

        mock.clearFailures();

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(gpuLabels()).containsExactlyEntriesOf(expectedWithoutSysfs("rtx3060-none")));
        given().get("/q/health/ready").then().statusCode(200);
    }
}
