package dev.kgpu.plugin.it;

import dev.kgpu.cdi.CdiRegistry;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.nvml.ComputeMode;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlReturnCode;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.nvml.mock.SimulatedDriverRoot;
import dev.kgpu.agent.testing.LogLines;
import dev.kgpu.plugin.deviceplugin.DevicePluginFrontEnd;
import dev.kgpu.plugin.dra.DraDriver;
import dev.kgpu.plugin.dra.DraNames;
import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.ClaimRef;
import dev.kgpu.plugin.node.DeviceUnit;
import dev.kgpu.plugin.mps.ControlProgram;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.DraFixtures;
import dev.kgpu.plugin.testing.MockMpsDaemon;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import dev.kgpu.sim.apiserver.TestApiServer;
import dev.kgpu.sim.kubelet.DeviceManagerCheckpoint;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.ResourceState;
import dev.kgpu.sim.podresources.FakePodResourcesServer;
import dev.kgpu.sim.pluginwatcher.DraClaim;
import dev.kgpu.sim.pluginwatcher.DraClaimResult;
import dev.kgpu.sim.pluginwatcher.DraPluginClient;
import dev.kgpu.sim.pluginwatcher.PluginRegistration;
import dev.kgpu.sim.pluginwatcher.PluginWatcher;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
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
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static dev.kgpu.plugin.testing.DraFixtures.number;
import static dev.kgpu.plugin.testing.DraFixtures.text;
import static dev.kgpu.plugin.testing.DraFixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real plugin with its DRA driver on the mock NVML (the real FFM path), registered by the kubelet's plugin
 * watcher, called through the kubelet's DRA client, publishing to and reading from the Kubernetes API test server
 * (CRUD, with field selectors). Tests wait for what they check (a registration, a slice, a status), never for time.
 */
class DraDriverIT {

    static final String NODE = "gpu-node-1";
    static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * Well under the driver's periodic comparison (30 s): a republish within it came from the watch or the registration.
     * The ≤1 s figure itself is a benchmark (docs/benchmarks.md).
     */
    static final Duration RESTART_WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    TestApiServer api;

    @BeforeEach
    void apiServerWithTheNode() {
        api = TestApiServer.start();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
    }

    @AfterEach
    void stopApiServer() {
        api.close();
    }

    MockNvmlPlugin.Builder plugin(String profile) {
        return MockNvmlPlugin.builder(dir).profile(profile).dra(api, NODE);
    }

    List<ResourceSlice> slices() {
        return api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
    }

    /** Waits until the node's slices hold exactly one pool generation whose devices satisfy {@code condition}. */
    List<Device> awaitDevices(Predicate<List<String>> condition, String description) {
        Await.until(() -> condition.test(deviceNames()), WAIT, description + "; last: " + deviceNames());
        return slices().stream().flatMap(s -> s.getSpec().getDevices().stream()).toList();
    }

    List<String> deviceNames() {
        return slices().stream().flatMap(s -> s.getSpec().getDevices().stream()).map(Device::getName).toList();
    }

    @Test
    void theKubeletsPluginWatcherRegistersTheDriverAndCallsItsV1Service() {
        try (MockNvmlPlugin plugin = plugin("dgx-h100").start()) {
            DraPluginClient client = plugin.draClient();

            PluginRegistration registration = plugin.pluginWatcher.registrations().getLast();
            assertThat(registration.registered()).isTrue();
            assertThat(registration.socket()).isEqualTo(dir.resolve("plugins_registry/gpu.nvidia.com-reg.sock"));
            assertThat(registration.type()).isEqualTo("DRAPlugin");
            assertThat(registration.name()).isEqualTo("gpu.nvidia.com");
            assertThat(registration.endpoint()).isEqualTo(dir.resolve("plugins/gpu.nvidia.com/dra.sock").toString());
            assertThat(registration.supportedVersions()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");
            assertThat(client.service()).isEqualTo(DraPluginClient.V1);
            assertThat(client.prepare(List.of())).as("the liveness probe NVIDIA's chart uses").isEmpty();
            Await.until(() -> plugin.dra.status().ready(), WAIT, "registered and published: " + plugin.dra.status());
            assertThat(plugin.kubelet.registrations()).as("the device plugin beside it").isNotEmpty();
        }
        assertThat(dir.resolve("plugins_registry/gpu.nvidia.com-reg.sock")).as("removed at stop").doesNotExist();
        assertThat(dir.resolve("plugins/gpu.nvidia.com/dra.sock")).doesNotExist();
        assertThat(slices()).as("left for the kubelet to remove, as NVIDIA's driver does").hasSize(1);
    }

    @Test
    void aDgxH100IsOneSliceOfEightGpusWithNvidiasAttributes() {
        MockProfile profile = MockNvml.profile("dgx-h100");
        try (MockNvmlPlugin plugin = plugin("dgx-h100").start()) {
            List<Device> devices = awaitDevices(names -> names.size() == 8, "8 GPUs published");

            ResourceSlice slice = slices().getFirst();
            assertThat(slice.getMetadata().getName()).startsWith("0-gpu.nvidia.com-" + NODE + "-");
            assertThat(slice.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
                assertThat(owner.getKind()).isEqualTo("Node");
                assertThat(owner.getName()).isEqualTo(NODE);
                assertThat(owner.getUid()).isEqualTo(api.client().nodes().withName(NODE).get().getMetadata().getUid());
            });
            assertThat(slice.getSpec().getDriver()).isEqualTo("gpu.nvidia.com");
            assertThat(slice.getSpec().getNodeName()).isEqualTo(NODE);
            assertThat(slice.getSpec().getPool().getName()).isEqualTo(NODE);
            assertThat(slice.getSpec().getPool().getGeneration()).isEqualTo(1L);
            assertThat(slice.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
            assertThat(devices).extracting(Device::getName).containsExactly("gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4",
                    "gpu-5", "gpu-6", "gpu-7");

            Map<String, Object> gpu3 = profile.gpu(3);
            String busId = MockProfile.string(gpu3, "pci.busId").toLowerCase().substring(4);
            assertThat(devices.get(3).getAttributes()).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                    Map.entry("type", text("gpu")),
                    Map.entry("uuid", text(MockProfile.string(gpu3, "uuid"))),
                    Map.entry("productName", text("NVIDIA H100 80GB HBM3")),
                    Map.entry("brand", text("Nvidia")),
                    Map.entry("architecture", text("Hopper")),
                    Map.entry("cudaComputeCapability", version("9.0.0")),
                    Map.entry("driverVersion", version("550.54.15")),
                    Map.entry("cudaDriverVersion", version("12.4.0")),
                    Map.entry("index", number(3)),
                    Map.entry("minor", number(MockProfile.number(gpu3, "minorNumber").longValue())),
                    Map.entry("pcieBusID", text(busId)),
                    Map.entry("resource.kubernetes.io/pciBusID", text(busId))));
            assertThat(devices.get(3).getCapacity()).containsOnlyKeys("memory");
            assertThat(devices.get(3).getCapacity().get("memory").getValue()).isEqualTo(new Quantity("81559Mi"));
            Await.until(() -> plugin.dra.status().slicesCurrent(), WAIT, "published: " + plugin.dra.status());
            int writes = api.requests("PUT") + api.requests("POST");

            plugin.supervisor.reload(); // SIGHUP: the servers restart, the devices are the same
            Await.until(() -> plugin.devicePlugin.status().registered().contains("nvidia.com/gpu"), WAIT, "re-registered");
            Await.until(() -> plugin.dra.status().slicesCurrent(), WAIT, "published: " + plugin.dra.status());
            assertThat(api.requests("PUT") + api.requests("POST")).as("an unchanged pool is not written").isEqualTo(writes);
            assertThat(slices().getFirst().getSpec().getPool().getGeneration()).isEqualTo(1L);
        }
    }

    @Test
    void aMigNodeOffersEachMigDeviceWithItsProfileAndMemorySlices() {
        MockProfile profile = MockNvml.profile("h100-mig");
        try (MockNvmlPlugin plugin = plugin("h100-mig").env("MIG_STRATEGY", "mixed").start()) {
            int gpus = profile.gpus().size();
            List<Device> devices = awaitDevices(names -> names.size() == 5 * gpus, "5 MIG devices per GPU");

            assertThat(devices).extracting(Device::getName).as("GPU 0: the two 1c.2g.20gb compute instances of the"
                    + " 2g.20gb GPU instance on slices 0-1, two 1g.10gb on 2 and 3, 3g.40gb on slices 4-7; not the GPU itself")
                    .startsWith("gpu-0-mig-1c2g20gb-14-0-0", "gpu-0-mig-1c2g20gb-14-0-1", "gpu-0-mig-1g10gb-19-2",
                            "gpu-0-mig-1g10gb-19-3", "gpu-0-mig-3g40gb-9-4");
            assertThat(devices).extracting(Device::getName).doesNotHaveDuplicates();
            Device big = devices.get(4);
            Map<String, Object> gpu0 = profile.gpu(0);
            assertThat(big.getAttributes()).containsEntry("type", text("mig"))
                    .containsEntry("uuid", text("MIG-09f6c212-bf78-407d-b132-a0f8518982b6"))
                    .containsEntry("parentUUID", text(MockProfile.string(gpu0, "uuid")))
                    .containsEntry("profile", text("3g.40gb"))
                    .containsEntry("productName", text("NVIDIA H100 80GB HBM3"))
                    .containsEntry("parentIndex", number(0))
                    .containsEntry("cudaComputeCapability", version("9.0.0"));
            assertThat(big.getCapacity().keySet()).containsExactlyInAnyOrder("multiprocessors", "copyEngines", "decoders",
                    "encoders", "jpegEngines", "ofaEngines", "memory", "memorySlice4", "memorySlice5", "memorySlice6",
                    "memorySlice7");
            assertThat(big.getCapacity().get("memory").getValue()).isEqualTo(new Quantity("40448Mi"));
            assertThat(big.getCapacity().get("multiprocessors").getValue()).isEqualTo(new Quantity("60"));
            Await.until(() -> plugin.kubelet.resource("nvidia.com/mig-3g.40gb").isPresent(), WAIT, "the device plugin beside it");
        }
    }

    @Test
    void everyMigDeviceOfMigMixedIsPublishedUnderAUniqueName() {
        try (MockNvmlPlugin plugin = plugin("mig-mixed").start()) {
            List<Device> devices = awaitDevices(names -> names.size() == 18, "18 MIG devices");

            assertThat(devices).extracting(Device::getName).doesNotHaveDuplicates()
                    .allMatch(name -> name.length() <= 63 && name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?"))
                    .contains("gpu-3-mig-1c2g20gb-14-0-0", "gpu-3-mig-1c2g20gb-14-0-1", "gpu-3-mig-2g20gb-14-2",
                            "gpu-3-mig-3g40gb-9-4", "gpu-2-mig-1g10gb-me-20-4");
            assertThat(devices).extracting(d -> d.getAttributes().get("uuid").getString()).doesNotHaveDuplicates();
        }
    }

    @Test
    void afterAKubeletRestartDeletedTheNodesSlicesTheyAreBackWhicheverCameFirstWipeOrRegistration() {
        try (MockNvmlPlugin plugin = plugin("dgx-h100").start()) {
            List<String> published = awaitDevices(names -> names.size() == 8, "8 GPUs published").stream()
                    .map(Device::getName).toList();
            // the kubelet had registered the driver before it restarts (slices can be published before that)
            plugin.pluginWatcher.await(() -> plugin.pluginWatcher.registrations().stream()
                    .anyMatch(PluginRegistration::registered), WAIT, "registered before the restart");

            // the kubelet stops, starts, deletes the node's slices, then its plugin watcher finds the socket again
            plugin.pluginWatcher.close();
            Set<String> wiped = wipeNodeSlices();
            try (PluginWatcher restarted = PluginWatcher.start(dir.resolve("plugins_registry"))) {
                restarted.await(() -> restarted.registrations().stream().anyMatch(PluginRegistration::registered),
                        RESTART_WAIT, "registered again");
                awaitRepublishedAfter(wiped, published, "republished");

                // the wipe may land after the registration: the kubelet waits for its node lister first
                Set<String> wipedAgain = wipeNodeSlices();
                awaitRepublishedAfter(wipedAgain, published, "republished again");
            }
        }
    }

    @Test
    void aSliceAnotherWriterChangedIsWrittenBackAsTheDriverPublishedIt() {
        try (MockNvmlPlugin plugin = plugin("dgx-h100").start()) {
            awaitDevices(names -> names.size() == 8, "8 GPUs published");
            ResourceSlice slice = slices().getFirst();
            slice.getSpec().setDevices(slice.getSpec().getDevices().subList(0, 5));
            ResourceSlice changed = api.client().dynamicResourceAllocation().v1().resourcesSlices().resource(slice).update();
            // the driver's watch may write it back before the next read: the proof is a newer version, not 5 in between
            assertThat(changed.getSpec().getDevices()).as("the other writer's change, as the API server took it").hasSize(5);
            String changedVersion = changed.getMetadata().getResourceVersion();

            Await.until(() -> deviceNames().size() == 8 && slices().stream()
                    .noneMatch(s -> changedVersion.equals(s.getMetadata().getResourceVersion())), RESTART_WAIT,
                    "8 GPUs again, written over version " + changedVersion + "; last: " + deviceNames());
        }
    }

    /**
     * The kubelet's DeleteCollection of the node's ResourceSlices (field selector {@code spec.nodeName}).
     * Returns the UIDs of the slices it deleted: a driver that watches may write new ones back at once, so the
     * proof of a republish is slices with other UIDs, not an empty list in between.
     */
    Set<String> wipeNodeSlices() {
        List<ResourceSlice> nodeSlices = api.client().dynamicResourceAllocation().v1().resourcesSlices()
                .withField("spec.nodeName", NODE).list().getItems();
        assertThat(nodeSlices).as("the node's slices before the wipe").isNotEmpty();
        nodeSlices.forEach(s -> api.client().dynamicResourceAllocation().v1().resourcesSlices().resource(s).delete());
        return nodeSlices.stream().map(s -> s.getMetadata().getUid()).collect(Collectors.toSet());
    }

    void awaitRepublishedAfter(Set<String> wipedUids, List<String> published, String description) {
        Await.until(() -> {
            List<ResourceSlice> now = slices();
            return !now.isEmpty() && now.stream().noneMatch(s -> wipedUids.contains(s.getMetadata().getUid()))
                    && deviceNames().equals(published);
        }, RESTART_WAIT, description + " in new slices; last: " + deviceNames());
    }

    @Test
    void anXidTakesTheGpuOutOfTheSliceAndItsRecoveryPutsItBack() {
        try (MockNvmlPlugin plugin = plugin("dgx-h100").start()) {
            awaitDevices(names -> names.size() == 8, "8 GPUs published");
            DraPluginClient client = plugin.draClient();
            ResourceClaim onGpu3 = createClaim("ml", "on-gpu-3", "gpu-3");

            plugin.mock.injectXid(plugin.gpuUuid(3), 94);
            awaitDevices(names -> names.size() == 7 && !names.contains("gpu-3"), "gpu-3 out of the slice");
            assertThat(slices().getFirst().getSpec().getPool().getGeneration()).isEqualTo(2L);
            DraClaimResult refused = client.prepare(List.of(new DraClaim("ml", "on-gpu-3", onGpu3.getMetadata().getUid())))
                    .values().iterator().next();
            assertThat(refused.error()).contains("device gpu-3 (" + plugin.gpuUuid(3) + ") is unhealthy: XID 94");

            plugin.clock.advance(Duration.ofMinutes(2));
            plugin.node.checkHealthNow();
            awaitDevices(names -> names.size() == 8, "gpu-3 back in the slice");
            assertThat(slices().getFirst().getSpec().getPool().getGeneration()).isEqualTo(3L);
        }
    }

    @Test
    void aClaimIsPreparedOnceUnpreparedIdempotentlyAndSurvivesARestart() throws IOException {
        Path root = driverRoot("dgx-h100");
        ResourceClaim created = createClaim("ml", "training", "gpu-1");
        DraClaim claim = new DraClaim("ml", "training", created.getMetadata().getUid());
        DraClaimResult first;
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), root).start()) {
            first = plugin.draClient().prepare(List.of(claim)).get(claim.uid());

            assertThat(first.error()).isEmpty();
            assertThat(first.devices()).containsExactly(new DraClaimResult.Device(List.of("gpu"), NODE, "gpu-1",
                    List.of("k8s.gpu.nvidia.com/claim=" + claim.uid() + "-gpu-1")));
            CdiSpec.ContainerEdits edits = CdiRegistry.load(List.of(dir.resolve("cdi"))).resolve(first.cdiDeviceIds());
            assertThat(edits.deviceNodes()).extracting(CdiSpec.DeviceNode::path).contains("/dev/nvidia1", "/dev/nvidiactl")
                    .doesNotContain("/dev/nvidia0");
            assertThat(edits.mounts()).extracting(CdiSpec.Mount::containerPath)
                    .contains("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15");
            assertThat(plugin.dra.status().preparedClaims()).isEqualTo(1);
        }
        api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace("ml").withName("training").delete();

        try (MockNvmlPlugin restarted = withDriverRoot(plugin("dgx-h100"), root).start()) {
            DraPluginClient client = restarted.draClient();
            assertThat(client.prepare(List.of(claim)).get(claim.uid())).as("from the checkpoint: the claim is gone from"
                    + " the API server").isEqualTo(first);

            assertThat(client.unprepare(List.of(claim))).containsExactly(Map.entry(claim.uid(), Optional.empty()));
            assertThat(client.unprepare(List.of(claim))).as("again").containsExactly(Map.entry(claim.uid(), Optional.empty()));
            assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_" + claim.uid() + ".json")).doesNotExist();
            assertThat(client.prepare(List.of(claim)).get(claim.uid()).error()).as("unprepared: asked again, it is gone")
                    .hasValueSatisfying(e -> assertThat(e).startsWith("ResourceClaim ml/training was not found in the API server"));
        }
    }

    @Test
    void aPreparedClaimHoldsItsGpuInTheNodesLedgerAcrossARestartUntilUnprepared() throws IOException {
        Path root = driverRoot("dgx-h100");
        ResourceClaim created = createClaim("ml", "held", "gpu-2");
        DraClaim claim = new DraClaim("ml", "held", created.getMetadata().getUid());
        ClaimRef held = new ClaimRef("ml", "held", claim.uid());
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), root).start()) {
            DraPluginClient client = plugin.draClient();
            assertThat(plugin.ledger.view().entries()).isEmpty();

            assertThat(client.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();

            assertThat(plugin.ledger.view().entries()).singleElement().isInstanceOfSatisfying(
                    AllocationLedger.Hold.DraHold.class, hold -> {
                        assertThat(hold.claim()).isEqualTo(held);
                        assertThat(hold.device()).isEqualTo("gpu-2");
                        assertThat(hold.unit()).isEqualTo(new DeviceUnit(plugin.gpuUuid(2), Optional.empty()));
                    });
        }

        try (MockNvmlPlugin restarted = withDriverRoot(plugin("dgx-h100"), root).start()) {
            DraPluginClient client = restarted.draClient(); // registered: the checkpoint was opened before
            assertThat(restarted.ledger.view().entries()).as("restored from the claim checkpoint").singleElement()
                    .isInstanceOfSatisfying(AllocationLedger.Hold.DraHold.class, hold -> assertThat(hold.claim()).isEqualTo(held));

            assertThat(client.unprepare(List.of(claim))).containsExactly(Map.entry(claim.uid(), Optional.empty()));

            assertThat(restarted.ledger.view().entries()).isEmpty();
        }
    }

    @Test
    void aGpuPreparedForOneClaimIsRefusedToASecondClaimUntilTheFirstIsUnprepared() {
        ResourceClaim first = createClaim("ml", "first", "gpu-6");
        ResourceClaim second = createClaim("ml", "second", "gpu-6");
        DraClaim firstRef = new DraClaim("ml", "first", first.getMetadata().getUid());
        DraClaim secondRef = new DraClaim("ml", "second", second.getMetadata().getUid());
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), uncheckedRoot("dgx-h100")).start()) {
            DraPluginClient client = plugin.draClient();
            assertThat(client.prepare(List.of(firstRef)).get(firstRef.uid()).error()).isEmpty();

            DraClaimResult refused = client.prepare(List.of(secondRef)).get(secondRef.uid());

            assertThat(refused.error()).hasValueSatisfying(e -> assertThat(e).startsWith(
                    "requested device gpu-6 is already allocated to different claim " + firstRef.uid() + " (ml/first"));
            assertThat(refused.cdiDeviceIds()).isEmpty();
            assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_" + secondRef.uid() + ".json")).doesNotExist();
            assertThat(plugin.dra.status().preparedClaims()).isEqualTo(1);

            assertThat(client.unprepare(List.of(firstRef))).containsExactly(Map.entry(firstRef.uid(), Optional.empty()));
            assertThat(client.prepare(List.of(secondRef)).get(secondRef.uid()).cdiDeviceIds()).as("the kubelet's retry")
                    .containsExactly("k8s.gpu.nvidia.com/claim=" + secondRef.uid() + "-gpu-6");
        }
    }

    @Test
    void aGpuAClaimHoldsIsWithdrawnFromTheDevicePluginAsUnhealthyUntilTheClaimIsUnprepared() {
        ResourceClaim onGpu6 = createClaim("ml", "a100-pod-7", "gpu-6");
        DraClaim claim = new DraClaim("ml", "a100-pod-7", onGpu6.getMetadata().getUid());
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), uncheckedRoot("dgx-h100")).start()) {
            plugin.await("nvidia.com/gpu", r -> r.allocatable() == 8);
            DraPluginClient client = plugin.draClient();

            assertThat(client.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();

            ResourceState withdrawn = plugin.await("nvidia.com/gpu", r -> r.allocatable() == 7);
            assertThat(withdrawn.unhealthyIds()).containsExactly(plugin.gpuUuid(6));
            assertThat(withdrawn.capacity()).isEqualTo(8);
            assertThat(plugin.kubelet.admit(PodSpec.of("cuda-demo-all", "nvidia.com/gpu", 8)))
                    .as("the kubelet cannot hand out gpu-6").isInstanceOf(PodAdmission.Pending.class);

            client.unprepare(List.of(claim));

            plugin.await("nvidia.com/gpu", r -> r.allocatable() == 8);
        }
    }

    @Test
    void aGpuTheDevicePluginHandedOutLeavesTheSliceIsRefusedToClaimsAndReturnsWhenTheKubeletNoLongerListsIt() {
        try (FakePodResourcesServer podResources = FakePodResourcesServer.start(dir.resolve("pod-resources/kubelet.sock"));
             MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), uncheckedRoot("dgx-h100"))
                     .env("KGPU_POD_RESOURCES_SOCKET", podResources.socket().toString()).start()) {
            awaitDevices(names -> names.size() == 8, "8 GPUs published");
            plugin.await("nvidia.com/gpu", r -> r.allocatable() == 8);
            Await.until(() -> podResources.requestCount() > 0, WAIT, "the driver asks the kubelet's PodResources");

            PodAdmission admitted = plugin.kubelet.admit(PodSpec.of("cuda-demo", "nvidia.com/gpu", 1));
            assertThat(admitted).isInstanceOf(PodAdmission.Admitted.class);
            String uuid = ((PodAdmission.Admitted) admitted).allocation().deviceIds("nvidia.com/gpu").getFirst();
            podResources.assign("cuda-demo", "default", "main", "nvidia.com/gpu", List.of(uuid)); // as the kubelet does
            String name = "gpu-" + java.util.stream.IntStream.range(0, 8).filter(i -> plugin.gpuUuid(i).equals(uuid))
                    .findFirst().orElseThrow();

            awaitDevices(names -> names.size() == 7 && !names.contains(name), name + " out of the slice");
            Await.until(() -> plugin.ledger.view().entries().stream().anyMatch(h -> h instanceof
                    AllocationLedger.Hold.DevicePluginHold dp && dp.pod().isPresent()), WAIT, "the kubelet's report read");
            ResourceClaim raced = createClaim("ml", "raced", name);
            DraClaim racedRef = new DraClaim("ml", "raced", raced.getMetadata().getUid());
            assertThat(plugin.draClient().prepare(List.of(racedRef)).get(racedRef.uid()).error())
                    .as("a scheduler that allocated from an older slice").hasValueSatisfying(e -> assertThat(e)
                            .isEqualTo("requested device " + name + " (" + uuid + ") is in use through the device plugin:"
                                    + " nvidia.com/gpu in pod default/cuda-demo since " + holdSince(plugin, uuid)));

            plugin.kubelet.release("cuda-demo");
            podResources.remove("cuda-demo", "default");

            awaitDevices(names -> names.size() == 8, name + " back in the slice");
            assertThat(plugin.draClient().prepare(List.of(racedRef)).get(racedRef.uid()).error()).isEmpty();
        }
    }

    @Test
    void withoutPodResourcesTheKubeletsDeviceManagerCheckpointWithdrawsTheGpusItAllocatedAndReadinessSaysSo()
            throws IOException {
        // no PodResources server: its socket is not there, as when the kubelet's API is off or unreachable
        try (LogLines log = new LogLines(DraDriver.class);
             MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), uncheckedRoot("dgx-h100")).start()) {
            awaitDevices(names -> names.size() == 8, "8 GPUs published");
            plugin.await("nvidia.com/gpu", r -> r.allocatable() == 8);
            Path checkpoint = plugin.kubelet.checkpoint();
            Await.until(() -> "device-manager checkpoint".equals(plugin.dra.status().details().get("draKubeletAllocations"))
                    && plugin.dra.status().ready(), WAIT, "ready, fed by the checkpoint: " + plugin.dra.status());
            assertThat(plugin.dra.status().problems()).anySatisfy(p -> assertThat(p).startsWith(
                    "the kubelet's PodResources API cannot be read (the kubelet's PodResources socket "
                            + dir.resolve("pod-resources/kubelet.sock") + " is not there): reading what its device manager"
                            + " allocated from its checkpoint " + checkpoint));

            PodAdmission admitted = plugin.kubelet.admit(PodSpec.of("cuda-demo", "nvidia.com/gpu", 1));
            String uuid = ((PodAdmission.Admitted) admitted).allocation().deviceIds("nvidia.com/gpu").getFirst();
            String name = gpuName(plugin, uuid);
            String podUid = DeviceManagerCheckpoint.podUid("cuda-demo");
            Await.until(() -> plugin.ledger.view().entries().stream().anyMatch(h -> h instanceof
                    AllocationLedger.Hold.DevicePluginHold dp && dp.source() == AllocationLedger.Source.KUBELET_CHECKPOINT
                    && dp.pod().map(AllocationLedger.KubeletAllocations.Pod::uid).equals(Optional.of(podUid))), WAIT,
                    "the checkpoint's entry read: " + plugin.ledger.view().entries());
            awaitDevices(names -> names.size() == 7 && !names.contains(name), name + " out of the slice");
            ResourceClaim raced = createClaim("ml", "raced", name);
            DraClaim racedRef = new DraClaim("ml", "raced", raced.getMetadata().getUid());
            assertThat(plugin.draClient().prepare(List.of(racedRef)).get(racedRef.uid()).error()).hasValue(
                    "requested device " + name + " (" + uuid + ") is in use through the device plugin: nvidia.com/gpu in"
                            + " pod with UID " + podUid + " since " + holdSince(plugin, uuid));

            plugin.kubelet.release("cuda-demo");
            assertThat(deviceNames()).as("the kubelet keeps an ended pod in its checkpoint until it writes it again")
                    .doesNotContain(name);
            PodAdmission next = plugin.kubelet.admit(PodSpec.of("next", "nvidia.com/gpu", 1)); // the kubelet writes again
            String nextName = gpuName(plugin, ((PodAdmission.Admitted) next).allocation().deviceIds("nvidia.com/gpu").getFirst());
            Await.until(() -> checkpointPods(plugin).equals(List.of(DeviceManagerCheckpoint.podUid("next"))), WAIT,
                    "the ended pod gone with the kubelet's next write: " + plugin.ledger.view().entries());
            awaitDevices(names -> names.size() == 7 && !names.contains(nextName), "only " + nextName + " out");

            Files.delete(checkpoint);
            Await.until(() -> !plugin.dra.status().ready(), WAIT, "not ready without either source: " + plugin.dra.status());
            assertThat(plugin.dra.status().details()).containsEntry("draKubeletAllocations", "none");
            assertThat(plugin.node.status().ready()).isFalse();
            assertThat(plugin.dra.status().problems()).anySatisfy(p -> assertThat(p).isEqualTo(
                    "cannot read what the kubelet's device manager allocated: the kubelet's PodResources socket "
                            + dir.resolve("pod-resources/kubelet.sock") + " is not there; the kubelet's device-manager"
                            + " checkpoint " + checkpoint + " is not there; GPUs the device plugin hands out cannot be"
                            + " withdrawn from DRA until one of them can be read"));
            assertThat(deviceNames()).as("nothing is freed on missing data").doesNotContain(nextName);
            // one line per change of source: the checkpoint, then none; a first read before the simulated kubelet wrote
            // its first checkpoint adds a "none" line ahead of them
            List<String> changes = log.lines().stream().filter(l -> l.contains("device manager allocated")).toList();
            assertThat(changes).as("one line per change of source").hasSizeBetween(2, 3);
            assertThat(changes.subList(changes.size() - 2, changes.size())).as("one line per change of source")
                    .satisfiesExactly(l -> assertThat(l).contains("reading what its device manager allocated from its checkpoint"),
                            l -> assertThat(l).contains("cannot read what the kubelet's device manager allocated"));
        }
    }

    /** The pods (by UID) of the device plugin's holds the checkpoint reported. */
    static List<String> checkpointPods(MockNvmlPlugin plugin) {
        return plugin.ledger.view().entries().stream()
                .filter(h -> h instanceof AllocationLedger.Hold.DevicePluginHold dp
                        && dp.source() == AllocationLedger.Source.KUBELET_CHECKPOINT)
                .map(h -> ((AllocationLedger.Hold.DevicePluginHold) h).pod().orElseThrow().uid()).toList();
    }

    static String gpuName(MockNvmlPlugin plugin, String uuid) {
        return "gpu-" + java.util.stream.IntStream.range(0, 8).filter(i -> plugin.gpuUuid(i).equals(uuid))
                .findFirst().orElseThrow();
    }

    static String holdSince(MockNvmlPlugin plugin, String uuid) {
        return plugin.ledger.view().entries().stream().filter(h -> h.unit().uuid().equals(uuid)).findFirst()
                .map(h -> h.since().toString()).orElse("?");
    }

    @Test
    void aClaimsOpaqueGpuConfigIsReadFromItsAllocationAndOnlyWhatKgpuCanApplyIsPrepared() {
        ResourceClaim asIs = createClaim("ml", "as-is", "gpu-1", "Default");
        ResourceClaim longSlices = createClaim("ml", "long-slices", "gpu-2", "Long");
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), uncheckedRoot("dgx-h100")).start()) {
            Map<String, DraClaimResult> results = plugin.draClient().prepare(List.of(
                    new DraClaim("ml", "as-is", asIs.getMetadata().getUid()),
                    new DraClaim("ml", "long-slices", longSlices.getMetadata().getUid())));

            assertThat(results.get(asIs.getMetadata().getUid()).error()).isEmpty();
            assertThat(results.get(longSlices.getMetadata().getUid()).error()).contains("time-slice interval Long cannot be"
                    + " applied to device gpu-2: NVML has no setter for it and kgpu does not run nvidia-smi; only interval"
                    + " Default can be applied");
        }
    }

    @Test
    void aTimeSlicedClaimsGpuGetsComputeModeDefaultUnlessAnMpsDaemonHoldsItOrNvmlRefuses() throws IOException {
        Path mpsRoot = dir.resolve("mps");
        ResourceClaim left = createClaim("ml", "left-exclusive", "gpu-1", "Default");
        ResourceClaim heldByMps = createClaim("ml", "held-by-mps", "gpu-2", "Default");
        ResourceClaim prohibited = createClaim("ml", "prohibited", "gpu-3", "Default");
        ResourceClaim plain = createClaim("ml", "plain", "gpu-4");
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), uncheckedRoot("dgx-h100"))
                .env("KGPU_MPS_CONTAINER_ROOT", mpsRoot.toString()).start();
             Nvml nvml = Nvml.open()) {
            List<GpuDevice> gpus = List.of(1, 2, 3, 4).stream()
                    .map(i -> nvml.deviceByUuid(plugin.gpuUuid(i)).orElseThrow()).toList();
            gpus.get(0).setComputeMode(ComputeMode.EXCLUSIVE_PROCESS);
            gpus.get(1).setComputeMode(ComputeMode.EXCLUSIVE_PROCESS);
            gpus.get(2).setComputeMode(ComputeMode.PROHIBITED);
            gpus.get(3).setComputeMode(ComputeMode.EXCLUSIVE_PROCESS);
            Files.createDirectories(mpsRoot.resolve("nvidia.com/gpu"));
            Files.writeString(mpsRoot.resolve("nvidia.com/gpu/.compute-modes"), plugin.gpuUuid(2) + " DEFAULT\n");

            Map<String, DraClaimResult> results = plugin.draClient().prepare(List.of(
                    new DraClaim("ml", "left-exclusive", left.getMetadata().getUid()),
                    new DraClaim("ml", "held-by-mps", heldByMps.getMetadata().getUid()),
                    new DraClaim("ml", "plain", plain.getMetadata().getUid())));
            MockNvml.load().failNext("nvmlDeviceSetComputeMode", NvmlReturnCode.ERROR_NO_PERMISSION, 1);
            DraClaimResult refused = plugin.draClient().prepare(List.of(
                    new DraClaim("ml", "prohibited", prohibited.getMetadata().getUid()))).get(prohibited.getMetadata().getUid());

            assertThat(results.get(left.getMetadata().getUid()).error()).isEmpty();
            assertThat(gpus.get(0).computeMode()).as("left EXCLUSIVE_PROCESS by no daemon: set").contains(ComputeMode.DEFAULT);
            assertThat(results.get(heldByMps.getMetadata().getUid()).error()).hasValueSatisfying(e -> assertThat(e).startsWith(
                    "sharing strategy TimeSlicing cannot be applied to GPU gpu-2 (" + plugin.gpuUuid(2) + "): it has compute"
                    + " mode EXCLUSIVE_PROCESS, set by the MPS control daemon of nvidia.com/gpu, and time-slicing needs DEFAULT"));
            assertThat(gpus.get(1).computeMode()).as("the MPS daemon's GPU untouched").contains(ComputeMode.EXCLUSIVE_PROCESS);
            assertThat(refused.error()).hasValueSatisfying(e -> assertThat(e).startsWith("sharing strategy TimeSlicing cannot"
                    + " be applied to GPU gpu-3 (" + plugin.gpuUuid(3) + "): it has compute mode PROHIBITED, time-slicing needs"
                    + " DEFAULT, and NVML refused to set it: nvmlDeviceSetComputeMode: "));
            assertThat(gpus.get(2).computeMode()).contains(ComputeMode.PROHIBITED);
            assertThat(results.get(plain.getMetadata().getUid()).error()).as("no sharing asked: the GPU as it is").isEmpty();
            assertThat(gpus.get(3).computeMode()).contains(ComputeMode.EXCLUSIVE_PROCESS);
            assertThat(plugin.dra.preparedClaims()).extracting(c -> c.claim().name())
                    .containsExactlyInAnyOrder("left-exclusive", "plain");
        }
    }

    @Test
    void anMpsClaimGetsAControlDaemonForItsGpuUntilUnpreparedAndARestartedDriverServesItAgain() throws IOException {
        Path root = driverRoot("dgx-h100");
        Path mpsRoot = dir.resolve("mps");
        ResourceClaim created = createClaim("ml", "mps", "gpu-5", Map.of("strategy", "MPS", "mpsConfig",
                Map.of("defaultActiveThreadPercentage", 40, "defaultPinnedDeviceMemoryLimit", "8Gi")));
        String uid = created.getMetadata().getUid();
        DraClaim claim = new DraClaim("ml", "mps", uid);
        Path folder = mpsRoot.resolve("claims/" + uid);
        ControlProgram client = new ControlProgram(MockMpsDaemon.fake(), ControlProgram.TIMEOUT);
        DraClaimResult first;
        long pid;
        String gpu5;
        try (MockNvmlPlugin plugin = withMps(withDriverRoot(plugin("dgx-h100"), root), mpsRoot).start();
             Nvml nvml = Nvml.open()) {
            gpu5 = plugin.gpuUuid(5);
            GpuDevice gpu = nvml.deviceByUuid(gpu5).orElseThrow();
            assertThat(gpu.computeMode()).contains(ComputeMode.DEFAULT);

            first = plugin.draClient().prepare(List.of(claim)).get(uid);

            assertThat(first.error()).isEmpty();
            CdiSpec.ContainerEdits edits = CdiRegistry.load(List.of(dir.resolve("cdi"))).resolve(first.cdiDeviceIds());
            assertThat(edits.env()).contains("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps");
            assertThat(edits.mounts()).extracting(m -> m.hostPath() + " -> " + m.containerPath()).contains(
                    folder.resolve("pipe") + " -> /tmp/nvidia-mps", folder.resolve("shm") + " -> /dev/shm");
            assertThat(gpu.computeMode()).as("MPS needs it").contains(ComputeMode.EXCLUSIVE_PROCESS);
            assertThat(ask(client, folder, "get_default_active_thread_percentage")).isEqualTo("40.0");
            assertThat(ask(client, folder, "get_default_device_pinned_mem_limit 0")).as("its one GPU").isEqualTo("8192M");
            pid = Long.parseLong(Files.readString(folder.resolve("pipe/nvidia-cuda-mps-control.pid")).strip());
            assertThat(Files.readString(Path.of("/proc/" + pid + "/environ")).split("\0"))
                    .as("the daemon serves the claim's GPU only").contains("CUDA_VISIBLE_DEVICES=" + gpu5);
        }
        assertThat(ProcessHandle.of(pid)).as("the daemon outlives the driver, as NVIDIA's Deployment does")
                .hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

        try (MockNvmlPlugin restarted = withMps(withDriverRoot(plugin("dgx-h100"), root), mpsRoot).start()) {
            DraPluginClient client2 = restarted.draClient();
            assertThat(client2.prepare(List.of(claim)).get(uid)).as("from the checkpoint").isEqualTo(first);
            assertThat(Files.readString(folder.resolve("pipe/nvidia-cuda-mps-control.pid")).strip())
                    .as("taken over, not started again").isEqualTo(Long.toString(pid));
        }

        // the daemon ends while no driver runs (the plugin's container restarted): the next driver starts it again
        assertThat(ask(client, folder, "quit")).isEmpty();
        Await.until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true), WAIT, "the daemon ended");
        try (MockNvmlPlugin restarted = withMps(withDriverRoot(plugin("dgx-h100"), root), mpsRoot).start();
             Nvml nvml = Nvml.open()) {
            DraPluginClient client2 = restarted.draClient(); // registered: the checkpoint was opened, the daemon resumed
            assertThat(ask(client, folder, "get_default_active_thread_percentage")).as("started again with the claim's settings")
                    .isEqualTo("40.0");
            assertThat(ask(client, folder, "get_default_device_pinned_mem_limit 0")).isEqualTo("8192M");
            long again = Long.parseLong(Files.readString(folder.resolve("pipe/nvidia-cuda-mps-control.pid")).strip());
            assertThat(nvml.deviceByUuid(gpu5).orElseThrow().computeMode()).contains(ComputeMode.EXCLUSIVE_PROCESS);

            assertThat(client2.unprepare(List.of(claim))).containsExactly(Map.entry(uid, Optional.empty()));

            Await.until(() -> ProcessHandle.of(again).map(p -> !p.isAlive()).orElse(true), WAIT, "the daemon stopped");
            assertThat(folder).as("its folders removed").doesNotExist();
            assertThat(nvml.deviceByUuid(gpu5).orElseThrow().computeMode()).as("given back").contains(ComputeMode.DEFAULT);
            assertThat(restarted.ledger.view().entries()).isEmpty();
        }
    }

    @Test
    void anMpsClaimWhoseDaemonCannotRunAgainAfterARestartStillGetsItsGpuModeBackWhenUnprepared() throws IOException {
        Path root = driverRoot("dgx-h100");
        Path mpsRoot = dir.resolve("mps");
        ResourceClaim created = createClaim("ml", "orphan", "gpu-6", Map.of("strategy", "MPS"));
        String uid = created.getMetadata().getUid();
        DraClaim claim = new DraClaim("ml", "orphan", uid);
        Path folder = mpsRoot.resolve("claims/" + uid);
        try (MockNvmlPlugin plugin = withMps(withDriverRoot(plugin("dgx-h100"), root), mpsRoot).start()) {
            assertThat(plugin.draClient().prepare(List.of(claim)).get(uid).error()).isEmpty();
        }
        long pid = Long.parseLong(Files.readString(folder.resolve("pipe/nvidia-cuda-mps-control.pid")).strip());
        assertThat(ask(new ControlProgram(MockMpsDaemon.fake(), ControlProgram.TIMEOUT), folder, "quit")).isEmpty();
        Await.until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true), WAIT, "the daemon ended");

        try (MockNvmlPlugin restarted = withMps(withDriverRoot(plugin("dgx-h100"), root), mpsRoot)
                .env("KGPU_MPS_CONTROL", dir.resolve("no-such-program").toString()).start();
             Nvml nvml = Nvml.open()) {
            DraPluginClient client = restarted.draClient();
            GpuDevice gpu = nvml.deviceByUuid(restarted.gpuUuid(6)).orElseThrow();
            gpu.setComputeMode(ComputeMode.EXCLUSIVE_PROCESS); // as the daemon left it (the mock starts each run afresh)

            assertThat(client.unprepare(List.of(claim))).containsExactly(Map.entry(uid, Optional.empty()));

            assertThat(gpu.computeMode()).as("given back from .compute-modes").contains(ComputeMode.DEFAULT);
            assertThat(folder).doesNotExist();
        }
    }

    @Test
    void anMpsClaimIsRefusedAGpuAnotherMpsDaemonHoldsAndLimitsForDevicesItDoesNotHave() throws IOException {
        Path mpsRoot = dir.resolve("mps");
        ResourceClaim held = createClaim("ml", "held", "gpu-2", Map.of("strategy", "MPS"));
        ResourceClaim elsewhere = createClaim("ml", "elsewhere", "gpu-3", Map.of("strategy", "MPS", "mpsConfig",
                Map.of("defaultPerDevicePinnedMemoryLimit", Map.of("1", "4Gi"))));
        try (MockNvmlPlugin plugin = withMps(withDriverRoot(plugin("dgx-h100"), uncheckedRoot("dgx-h100")), mpsRoot).start();
             Nvml nvml = Nvml.open()) {
            Files.createDirectories(mpsRoot.resolve("nvidia.com/gpu"));
            Files.writeString(mpsRoot.resolve("nvidia.com/gpu/.compute-modes"), plugin.gpuUuid(2) + " DEFAULT\n");

            Map<String, DraClaimResult> results = plugin.draClient().prepare(List.of(
                    new DraClaim("ml", "held", held.getMetadata().getUid()),
                    new DraClaim("ml", "elsewhere", elsewhere.getMetadata().getUid())));

            assertThat(results.get(held.getMetadata().getUid()).error()).contains("sharing strategy MPS cannot be applied to"
                    + " gpu-2 (" + plugin.gpuUuid(2) + "): GPU gpu-2 is held by the MPS control daemon of nvidia.com/gpu;"
                    + " one GPU serves one MPS daemon");
            assertThat(results.get(elsewhere.getMetadata().getUid()).error()).contains("error validating GPU config:"
                    + " sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit names device index 1, but the claim's devices are ["
                    + plugin.gpuUuid(3) + "] (indexes 0 to 0)");
            assertThat(nvml.deviceByUuid(plugin.gpuUuid(3)).orElseThrow().computeMode()).as("untouched")
                    .contains(ComputeMode.DEFAULT);
            assertThat(mpsRoot.resolve("claims/" + held.getMetadata().getUid())).as("no daemon folder").doesNotExist();
            assertThat(mpsRoot.resolve("claims/" + elsewhere.getMetadata().getUid())).doesNotExist();
            assertThat(plugin.ledger.view().entries()).isEmpty();
        }
    }

    @Test
    void anMpsClaimsDaemonThatStopsIsStartedAgainWhileTheDriverRunsAndNamedInTheStatusWhileItCannotBe() throws IOException {
        Path root = driverRoot("dgx-h100");
        Path mpsRoot = dir.resolve("mps");
        Path control = dir.resolve("bin/" + ControlProgram.NAME);
        Files.createDirectories(control.getParent());
        Files.copy(MockMpsDaemon.fake(), control, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        ResourceClaim created = createClaim("ml", "watched", "gpu-4", Map.of("strategy", "MPS", "mpsConfig",
                Map.of("defaultActiveThreadPercentage", 30)));
        String uid = created.getMetadata().getUid();
        DraClaim claim = new DraClaim("ml", "watched", uid);
        Path folder = mpsRoot.resolve("claims/" + uid);
        ControlProgram client = new ControlProgram(MockMpsDaemon.fake(), ControlProgram.TIMEOUT);
        try (MockNvmlPlugin plugin = withMps(withDriverRoot(plugin("dgx-h100"), root), mpsRoot)
                .env("KGPU_MPS_CONTROL", control.toString()).env("KGPU_HEALTH_CHECK_INTERVAL", "1s").start()) {
            DraPluginClient kubelet = plugin.draClient();
            assertThat(kubelet.prepare(List.of(claim)).get(uid).error()).isEmpty();
            long first = pid(folder);

            ProcessHandle.of(first).orElseThrow().destroyForcibly();

            Await.until(() -> plugin.frontEndCounts.mpsDaemonRestarts.get() == 1 && plugin.dra.status().mpsDaemons().isEmpty(),
                    WAIT, "the claim's daemon started again; last " + plugin.dra.status());
            assertThat(pid(folder)).isNotEqualTo(first);
            assertThat(ask(client, folder, "get_default_active_thread_percentage")).as("with the claim's settings")
                    .isEqualTo("30.0");

            // it stops again, and cannot be started again: the status names the claim, the driver is not ready
            Files.delete(control);
            long second = pid(folder);
            ProcessHandle.of(second).orElseThrow().destroyForcibly();

            String problem = Await.value(() -> plugin.dra.status().mpsDaemons().stream()
                    .filter(p -> p.contains("cannot start again")).findFirst().orElse(null), "the claim named");
            assertThat(problem).startsWith("the MPS control daemon of claim ml/watched (" + uid + ") cannot start again: " + control
                    + " was not found");
            assertThat(plugin.dra.status().problems()).contains(problem);
            assertThat(plugin.dra.status().ready()).isFalse();
            assertThat(plugin.frontEndCounts.mpsDaemonRestartFailures.get()).isPositive();

            // the program is back: the next try starts it, and the claim is unprepared as usual
            Files.copy(MockMpsDaemon.fake(), control, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
            Await.until(() -> plugin.frontEndCounts.mpsDaemonRestarts.get() == 2 && plugin.dra.status().mpsDaemons().isEmpty(),
                    WAIT, "the claim's daemon running again; last " + plugin.dra.status());
            assertThat(ask(client, folder, "get_default_active_thread_percentage")).isEqualTo("30.0");
            long third = pid(folder);

            assertThat(kubelet.unprepare(List.of(claim))).containsExactly(Map.entry(uid, Optional.empty()));
            Await.until(() -> ProcessHandle.of(third).map(p -> !p.isAlive()).orElse(true), WAIT, "the daemon stopped");
            assertThat(folder).doesNotExist();
        }
    }

    static long pid(Path claimFolder) throws IOException {
        return Long.parseLong(Files.readString(claimFolder.resolve("pipe/nvidia-cuda-mps-control.pid")).strip());
    }

    static MockNvmlPlugin.Builder withMps(MockNvmlPlugin.Builder builder, Path mpsRoot) {
        return builder.env("KGPU_MPS_CONTAINER_ROOT", mpsRoot.toString()).env("MPS_ROOT", mpsRoot.toString())
                .env("KGPU_MPS_CONTROL", MockMpsDaemon.fake().toString());
    }

    static String ask(ControlProgram client, Path folder, String command) {
        return client.send(folder.resolve("pipe"), folder.resolve("log"), command).output();
    }

    /** {@link #createClaim} with a claim config {@code GpuConfig} time-slicing at {@code interval}. */
    ResourceClaim createClaim(String namespace, String name, String device, String interval) {
        return DraFixtures.createClaim(api, namespace, name, NODE, device, Optional.of(DraFixtures.timeSlicedGpu(interval)));
    }

    /** {@link #createClaim} with a claim config {@code GpuConfig} of {@code sharing}. */
    ResourceClaim createClaim(String namespace, String name, String device, Map<String, Object> sharing) {
        return DraFixtures.createClaim(api, namespace, name, NODE, device, Optional.of(DraFixtures.gpuConfig(sharing)));
    }

    @Test
    void aClaimForAVanishedDeviceOrNotAllocatedFailsWithItsReason() {
        ResourceClaim vanished = createClaim("ml", "stale", "gpu-12");
        ResourceClaim pending = api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace("ml")
                .resource(new ResourceClaimBuilder().withNewMetadata().withNamespace("ml").withName("pending").endMetadata()
                        .withNewSpec().endSpec().build()).create();
        try (MockNvmlPlugin plugin = plugin("dgx-h100").start()) {
            Map<String, DraClaimResult> results = plugin.draClient().prepare(List.of(
                    new DraClaim("ml", "stale", vanished.getMetadata().getUid()),
                    new DraClaim("ml", "pending", pending.getMetadata().getUid()),
                    new DraClaim("ml", "pending", "an-older-uid")));

            assertThat(results.values()).extracting(r -> r.error().orElse("")).containsExactly(
                    "device gpu-12 (request gpu) is not on this node any more: it has [gpu-0, gpu-1, gpu-2, gpu-3, gpu-4,"
                            + " gpu-5, gpu-6, gpu-7]",
                    "ResourceClaim ml/pending is not allocated",
                    "ResourceClaim ml/pending has UID " + pending.getMetadata().getUid()
                            + ", not an-older-uid: the claim was deleted and created again");
        }
    }

    @Test
    void oneCallMixingGoodClaimsWithBrokenOnesPreparesTheGoodOnesAndAnswersEveryClaim() {
        ResourceClaim good = createClaim("ml", "good", "gpu-0");
        ResourceClaim other = createClaim("ml", "other", "gpu-1");
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("dgx-h100"), uncheckedRoot("dgx-h100")).start()) {
            DraPluginClient client = plugin.draClient();

            Map<String, DraClaimResult> results = client.prepare(List.of(
                    new DraClaim("ml", "good", good.getMetadata().getUid()),
                    new DraClaim("", "no-namespace", "uid-ns"),
                    new DraClaim("ml", "", "uid-name"),
                    new DraClaim("ml", "no-uid", ""),
                    new DraClaim("ml", "other", other.getMetadata().getUid())));

            assertThat(results.get(good.getMetadata().getUid()).cdiDeviceIds())
                    .containsExactly("k8s.gpu.nvidia.com/claim=" + good.getMetadata().getUid() + "-gpu-0");
            assertThat(results.get(other.getMetadata().getUid()).cdiDeviceIds())
                    .containsExactly("k8s.gpu.nvidia.com/claim=" + other.getMetadata().getUid() + "-gpu-1");
            assertThat(results.get("uid-ns").error()).contains("claim uid-ns: the kubelet sent no namespace (name 'no-namespace')");
            assertThat(results.get("uid-name").error()).contains("claim uid-name: the kubelet sent no name (namespace 'ml')");
            assertThat(results.get("").error()).contains("claim ml/no-uid: the kubelet sent no UID");
            assertThat(results.values()).extracting(r -> r.error().orElse("")).noneMatch(e -> e.contains("Name must be provided"));
            assertThat(plugin.dra.status().preparedClaims()).isEqualTo(2);
        }
    }

    @Test
    void withoutABootIdTheDriverSaysSoInOneWarningAndRunsOn() throws IOException {
        Path root = driverRoot("rtx3060");
        java.nio.file.Files.delete(root.resolve(SimulatedDriverRoot.BOOT_ID));
        try (LogLines log = new LogLines(DraDriver.class);
             MockNvmlPlugin plugin = withDriverRoot(plugin("rtx3060"), root).start()) {
            Await.until(() -> plugin.dra.status().ready(), WAIT, "ready: " + plugin.dra.status());

            assertThat(log.lines()).filteredOn(l -> l.contains("boot id")).singleElement().satisfies(line -> assertThat(line)
                    .startsWith("WARN").endsWith(" cannot read the boot id from " + root.resolve(SimulatedDriverRoot.BOOT_ID)
                            + " (no such file): claims checkpointed before a reboot cannot be told apart and are kept"));
            assertThat(plugin.dra.status().details()).containsEntry("draBootId", "unknown");
        }
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("rtx3060"), uncheckedRoot("rtx3060")).start()) {
            Await.until(() -> plugin.dra.status().ready(), WAIT, "ready: " + plugin.dra.status());
            assertThat(plugin.dra.status().details()).as("the simulated root has one").containsEntry("draBootId", "known");
        }
    }

    @Test
    void aRefusedRegistrationIsReportedWithTheKubeletsReasonAndTriedAgain() {
        try (PluginWatcher kubelet = PluginWatcher.start(dir.resolve("plugins_registry"));
             MockNvmlPlugin plugin = refusing(kubelet).plugin("rtx3060").withoutKubelet().start()) {
            kubelet.await(() -> kubelet.registrations().stream().anyMatch(r -> !r.registered()), WAIT, "a refusal");
            Await.until(() -> plugin.dra.status().problems().contains(
                    "the kubelet refused DRA driver gpu.nvidia.com: DRA driver gpu.nvidia.com is not allowed on this node"),
                    WAIT, "the refusal in the status: " + plugin.dra.status());
            assertThat(plugin.dra.status().ready()).isFalse();

            kubelet.refuseWith(info -> Optional.empty());
            Await.until(() -> plugin.dra.status().registered(), WAIT, "registered on a later try: " + plugin.dra.status());
            kubelet.await(() -> kubelet.registrations().stream().anyMatch(PluginRegistration::registered), WAIT,
                    "the registration on record");
            assertThat(plugin.dra.status().problems()).noneMatch(p -> p.contains("refused"));
        }
    }

    @Test
    void aKubeletThatKnowsOnlyV1beta1PreparesThroughIt() {
        ResourceClaim created = createClaim("ml", "old-kubelet", "gpu-0");
        DraClaim claim = new DraClaim("ml", "old-kubelet", created.getMetadata().getUid());
        try (MockNvmlPlugin plugin = withDriverRoot(plugin("rtx3060").withoutKubelet(), uncheckedRoot("rtx3060")).start();
             PluginWatcher kubelet133 = PluginWatcher.start(dir.resolve("plugins_registry"), List.of(DraPluginClient.V1BETA1))) {
            DraPluginClient client = kubelet133.awaitDriver(DraNames.DRIVER, WAIT);

            assertThat(client.service()).isEqualTo("v1beta1.DRAPlugin");
            DraClaimResult result = client.prepare(List.of(claim)).get(claim.uid());
            assertThat(result.cdiDeviceIds()).containsExactly("k8s.gpu.nvidia.com/claim=" + claim.uid() + "-gpu-0");
            assertThat(client.unprepare(List.of(claim))).containsExactly(Map.entry(claim.uid(), Optional.empty()));
        }
    }

    @Test
    void theDraDriverAloneServesNoDevicePluginResource() {
        try (MockNvmlPlugin plugin = plugin("dgx-h100").env("KGPU_KUBELET_APIS", "dra").start()) {
            awaitDevices(names -> names.size() == 8, "8 GPUs published");
            Await.until(() -> plugin.dra.status().ready(), WAIT, "the DRA driver ready: " + plugin.dra.status());

            assertThat(plugin.node.status().ready()).isTrue();
            assertThat(plugin.dra.status().details()).as("no device plugin here, so no checkpoint; ready all the same")
                    .containsEntry("draKubeletAllocations", "none");
            assertThat(plugin.node.status().frontEnd(DevicePluginFrontEnd.NAME)).as("no device-plugin front-end").isEmpty();
            assertThat(plugin.node.status().problems()).isEmpty();
            assertThat(plugin.kubelet.registrations()).as("no device-plugin registration").isEmpty();
            assertThat(dir.resolve("nvidia-gpu.sock")).doesNotExist();
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** Makes {@code kubelet} refuse every driver from now on. */
    DraDriverIT refusing(PluginWatcher kubelet) {
        kubelet.refuseWith(info -> Optional.of("DRA driver " + info.getName() + " is not allowed on this node"));
        return this;
    }

    /** A claim of one request {@code gpu}, allocated {@code device} of this node's pool, as the scheduler leaves it. */
    ResourceClaim createClaim(String namespace, String name, String device) {
        ResourceClaim created = DraFixtures.createClaim(api, namespace, name, NODE, device, Optional.empty());
        assertThat(created.getStatus().getAllocation()).as("the test server keeps the status").isNotNull();
        return created;
    }

    /** A simulated driver root for {@code profile}, as the simulated node lays it out. */
    Path driverRoot(String profile) throws IOException {
        return DraFixtures.driverRoot(dir.resolve("driver-root"), profile);
    }

    Path uncheckedRoot(String profile) {
        try {
            return driverRoot(profile);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static MockNvmlPlugin.Builder withDriverRoot(MockNvmlPlugin.Builder builder, Path root) {
        return builder.env("CONTAINER_DRIVER_ROOT", root.toString()).env("NVIDIA_DRIVER_ROOT", root.toString())
                .env("KGPU_PROC_ROOT", root.toString());
    }
}
