package dev.kgpu.plugin;

import dev.kgpu.agent.testing.PackagedAgent;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.plugin.dra.DraNames;
import dev.kgpu.plugin.dra.config.OpaqueConfigs;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.DraFixtures;
import dev.kgpu.sim.apiserver.TestApiServer;
import dev.kgpu.sim.pluginwatcher.DraClaim;
import dev.kgpu.sim.pluginwatcher.DraClaimResult;
import dev.kgpu.sim.pluginwatcher.DraPluginClient;
import dev.kgpu.sim.pluginwatcher.PluginRegistration;
import dev.kgpu.sim.pluginwatcher.PluginWatcher;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.kgpu.plugin.testing.DraFixtures.number;
import static dev.kgpu.plugin.testing.DraFixtures.text;
import static dev.kgpu.plugin.testing.DraFixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged plugin as a process with only its DRA driver ({@code KGPU_KUBELET_APIS=dra}) on the mock NVML and a
 * simulated driver root, against the Kubernetes API test server and the kubelet's plugin watcher: registration,
 * the node's ResourceSlices, NodePrepareResources of claims with NVIDIA's opaque configs (fabric8's claim GET and
 * deserialization, the CDI spec, the checkpoint), a SIGTERM and a second start answered from the checkpoint, and
 * NodeUnprepareResources through the {@code v1beta1} service too. Under the native profile the same test runs the
 * native executable, where these paths (fabric8's informers and models, Jackson, gRPC on Unix sockets) are the ones
 * most likely to miss what native-image must be told.
 */
class PackagedDraIT {

    static final String NODE = "gpu-node-1";
    static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    TestApiServer api;
    PluginWatcher kubelet;

    @BeforeEach
    void clusterWithTheNode() {
        api = TestApiServer.start();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        kubelet = PluginWatcher.start(dir.resolve("plugins_registry"));
    }

    @AfterEach
    void stopCluster() {
        kubelet.close();
        api.close();
    }

    /** The packaged plugin's environment: the DRA driver alone on {@code profile}, with a driver root of its own. */
    Map<String, String> environment(String profile) throws IOException {
        Map<String, String> env = DraFixtures.withDriverRoot(DraFixtures.packagedEnvironment(dir, api, NODE, profile),
                DraFixtures.driverRoot(dir.resolve("driver-root"), profile));
        env.put("MOCK_NVML_EVENTS", dir.resolve("nvml-events").toString());
        env.put("KGPU_MPS_CONTAINER_ROOT", dir.resolve("mps").toString());
        return env;
    }

    /** Waits for the {@code n}th accepted registration of the driver (each start registers once) and returns its client. */
    DraPluginClient awaitRegistration(PackagedAgent plugin, int n) {
        plugin.await(() -> kubelet.registrations().stream().filter(PluginRegistration::registered).count() >= n
                && kubelet.driver(DraNames.DRIVER).isPresent(), WAIT, "registration " + n + " of the DRA driver; registrations: "
                + kubelet.registrations());
        return kubelet.driver(DraNames.DRIVER).orElseThrow();
    }

    List<Device> awaitDevices(PackagedAgent plugin, int count) {
        plugin.await(() -> devices().size() == count, WAIT, count + " devices in the node's ResourceSlices");
        return devices();
    }

    List<Device> devices() {
        return api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
                .filter(s -> NODE.equals(s.getSpec().getNodeName())).flatMap(s -> s.getSpec().getDevices().stream()).toList();
    }

    Path spec(String uid) {
        return dir.resolve("cdi/k8s.gpu.nvidia.com-claim_" + uid + ".json");
    }

    Path checkpoint() {
        return dir.resolve("plugins/gpu.nvidia.com/kgpu-checkpoint.json");
    }

    static DraClaim ref(ResourceClaim claim) {
        return new DraClaim(claim.getMetadata().getNamespace(), claim.getMetadata().getName(), claim.getMetadata().getUid());
    }

    @Test
    void registersPublishesPreparesFromTheCheckpointAfterASigtermAndUnprepares() throws IOException {
        Map<String, String> env = environment("dgx-h100");
        Map<String, Object> gpu3 = MockNvml.profile("dgx-h100").gpu(3);
        ResourceClaim good = DraFixtures.createClaim(api, "ml", "good", NODE, "gpu-1",
                Optional.of(DraFixtures.timeSlicedGpu("Default")));
        ResourceClaim bad = DraFixtures.createClaim(api, "ml", "bad", NODE, "gpu-2", Optional.of(Map.of(
                "apiVersion", OpaqueConfigs.API_VERSION, "kind", OpaqueConfigs.GPU_CONFIG,
                "sharing", Map.of("strategy", "Bogus"))));
        DraClaimResult first;
        try (PackagedAgent plugin = PackagedAgent.start(dir.resolve("run-1"), env)) {
            DraPluginClient client = awaitRegistration(plugin, 1);

            PluginRegistration registration = kubelet.registrations().getLast();
            assertThat(registration.type()).isEqualTo(PluginWatcher.DRA_PLUGIN);
            assertThat(registration.name()).isEqualTo(DraNames.DRIVER);
            assertThat(registration.endpoint()).isEqualTo(dir.resolve("plugins/gpu.nvidia.com/dra.sock").toString());
            assertThat(registration.supportedVersions()).containsExactly(DraPluginClient.V1, DraPluginClient.V1BETA1);
            assertThat(client.service()).isEqualTo(DraPluginClient.V1);

            List<Device> devices = awaitDevices(plugin, 8);
            assertThat(devices).extracting(Device::getName).containsExactly("gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4",
                    "gpu-5", "gpu-6", "gpu-7");
            String busId = MockProfile.string(gpu3, "pci.busId").toLowerCase().substring(4);
            assertThat(devices.get(3).getAttributes()).containsAllEntriesOf(Map.of(
                    "type", text("gpu"),
                    "uuid", text(MockProfile.string(gpu3, "uuid")),
                    "productName", text("NVIDIA H100 80GB HBM3"),
                    "architecture", text("Hopper"),
                    "cudaComputeCapability", version("9.0.0"),
                    "driverVersion", version("550.54.15"),
                    "index", number(3),
                    "resource.kubernetes.io/pciBusID", text(busId)));
            assertThat(devices.get(3).getCapacity().get("memory").getValue()).isEqualTo(new Quantity("81559Mi"));

            Map<String, DraClaimResult> results = client.prepare(List.of(ref(good), ref(bad)));

            first = results.get(good.getMetadata().getUid());
            assertThat(first.error()).isEmpty();
            assertThat(first.devices()).containsExactly(new DraClaimResult.Device(List.of("gpu"), NODE, "gpu-1",
                    List.of("k8s.gpu.nvidia.com/claim=" + good.getMetadata().getUid() + "-gpu-1")));
            assertThat(spec(good.getMetadata().getUid())).content().contains("/dev/nvidia1");
            assertThat(checkpoint()).content().contains(good.getMetadata().getUid()).doesNotContain(bad.getMetadata().getUid());
            assertThat(results.get(bad.getMetadata().getUid()).error()).hasValueSatisfying(e -> assertThat(e)
                    .contains("unknown GPU sharing strategy: Bogus"));
            assertThat(spec(bad.getMetadata().getUid())).doesNotExist();

            plugin.terminate();
            PackagedAgent.Exit exit = plugin.awaitExit(WAIT);
            assertThat(exit.status()).as(exit.output()).isEqualTo(PackagedAgent.STOPPED_BY_SIGTERM);
            assertThat(exit.output()).doesNotContain("Exception");
            assertThat(dir.resolve("plugins_registry/gpu.nvidia.com-reg.sock")).as("removed at stop").doesNotExist();
        }
        api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace("ml").withName("good").delete();

        try (PackagedAgent plugin = PackagedAgent.start(dir.resolve("run-2"), env)) {
            DraPluginClient client = awaitRegistration(plugin, 2);

            assertThat(client.prepare(List.of(ref(good))).get(good.getMetadata().getUid()))
                    .as("from the checkpoint: the claim is gone from the API server").isEqualTo(first);
            assertThat(spec(good.getMetadata().getUid())).exists();

            try (PluginWatcher kubelet133 = PluginWatcher.start(dir.resolve("plugins_registry"), List.of(DraPluginClient.V1BETA1))) {
                DraPluginClient v1beta1 = kubelet133.awaitDriver(DraNames.DRIVER, WAIT);
                assertThat(v1beta1.service()).isEqualTo(DraPluginClient.V1BETA1);

                assertThat(v1beta1.unprepare(List.of(ref(good)))).containsExactly(Map.entry(good.getMetadata().getUid(),
                        Optional.empty()));
            }
            assertThat(spec(good.getMetadata().getUid())).doesNotExist();
            assertThat(checkpoint()).content().doesNotContain(good.getMetadata().getUid());

            plugin.terminate();
            PackagedAgent.Exit exit = plugin.awaitExit(WAIT);
            assertThat(exit.status()).as(exit.output()).isEqualTo(PackagedAgent.STOPPED_BY_SIGTERM);
            assertThat(exit.output()).doesNotContain("Exception");
        }
    }

    @Test
    void preparesAMigDeviceWithAMigDeviceConfig() throws IOException {
        Map<String, String> env = environment("h100-mig");
        env.put("MIG_STRATEGY", "mixed");
        String device = "gpu-0-mig-3g40gb-9-4";
        ResourceClaim claim = DraFixtures.createClaim(api, "ml", "mig", NODE, device, Optional.of(Map.of(
                "apiVersion", OpaqueConfigs.API_VERSION, "kind", OpaqueConfigs.MIG_DEVICE_CONFIG,
                "sharing", Map.of("strategy", "TimeSlicing"))));
        String uid = claim.getMetadata().getUid();
        try (PackagedAgent plugin = PackagedAgent.start(dir.resolve("run"), env)) {
            DraPluginClient client = awaitRegistration(plugin, 1);
            plugin.await(() -> devices().stream().anyMatch(d -> d.getName().equals(device)), WAIT, device + " published");
            assertThat(devices()).filteredOn(d -> d.getName().equals(device)).singleElement().satisfies(d -> assertThat(
                    d.getAttributes()).containsEntry("type", text("mig")).containsEntry("profile", text("3g.40gb"))
                    .containsEntry("uuid", text("MIG-09f6c212-bf78-407d-b132-a0f8518982b6")));

            DraClaimResult result = client.prepare(List.of(ref(claim))).get(uid);

            assertThat(result.error()).isEmpty();
            assertThat(result.cdiDeviceIds()).containsExactly("k8s.gpu.nvidia.com/claim=" + uid + "-" + device);
            assertThat(spec(uid)).content().contains("/dev/nvidia-caps/nvidia-cap");
            assertThat(checkpoint()).content().contains(uid);

            assertThat(client.unprepare(List.of(ref(claim)))).containsExactly(Map.entry(uid, Optional.empty()));
            assertThat(spec(uid)).doesNotExist();
            assertThat(plugin.output()).doesNotContain("Exception");
        }
    }
}
