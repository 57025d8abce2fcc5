package dev.kgpu.plugin.it;

import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.CDIDevice;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DeviceSpec;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Mount;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.MockMpsDaemon;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import dev.kgpu.plugin.testing.Profiles;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodAllocation;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.ResourceState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Allocate and GetPreferredAllocation of the real plugin on the mock NVML, as the kubelet simulator
 * calls them: every device-list strategy and ID strategy, device specs, MIG strategies, time-slicing and
 * MPS replicas, topology-aware and replica-policy preferences.
 */
class AllocationIT {

    static final String GPU = "nvidia.com/gpu";

    @TempDir
    Path dir;

    PodAllocation admit(MockNvmlPlugin plugin, String resource, int count) {
        PodAdmission admission = plugin.kubelet.admit(PodSpec.of("pod-" + System.nanoTime(), resource, count));
        assertThat(admission).isInstanceOf(PodAdmission.Admitted.class);
        return ((PodAdmission.Admitted) admission).allocation();
    }

    record Strategy(String description, Map<String, String> env, BiConsumer<MockNvmlPlugin, ContainerAllocateResponse> check) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Strategy> strategies() {
        return Stream.of(
                new Strategy("envvar, uuid", Map.of(), (p, r) -> {
                    assertThat(r.getEnvsMap()).containsExactly(Map.entry("NVIDIA_VISIBLE_DEVICES", p.gpuUuid(0)));
                    assertThat(r.getMountsList()).isEmpty();
                }),
                new Strategy("envvar, index", Map.of("DEVICE_ID_STRATEGY", "index"),
                        (p, r) -> assertThat(r.getEnvsMap()).containsExactly(Map.entry("NVIDIA_VISIBLE_DEVICES", "0"))),
                new Strategy("volume-mounts", Map.of("DEVICE_LIST_STRATEGY", "volume-mounts"), (p, r) -> {
                    assertThat(r.getEnvsMap()).containsExactly(Map.entry("NVIDIA_VISIBLE_DEVICES", "/var/run/nvidia-container-devices"));
                    assertThat(r.getMountsList()).containsExactly(Mount.newBuilder().setHostPath("/dev/null")
                            .setContainerPath("/var/run/nvidia-container-devices/" + p.gpuUuid(0)).build());
                }),
                new Strategy("cdi-annotations", Map.of("DEVICE_LIST_STRATEGY", "cdi-annotations"), (p, r) -> {
                    assertThat(r.getEnvsMap()).isEmpty();
                    assertThat(r.getAnnotationsMap()).hasSize(1).allSatisfy((key, value) -> {
                        assertThat(key).startsWith("cdi.k8s.io/nvidia-device-plugin_");
                        assertThat(value).isEqualTo("k8s.device-plugin.nvidia.com/gpu=" + p.gpuUuid(0));
                    });
                }),
                new Strategy("cdi-cri, index, custom prefix", Map.of("DEVICE_LIST_STRATEGY", "cdi-cri",
                        "DEVICE_ID_STRATEGY", "index", "CDI_ANNOTATION_PREFIX", "cdi.example.com/"), (p, r) -> {
                    assertThat(r.getCdiDevicesList()).containsExactly(
                            CDIDevice.newBuilder().setName("k8s.device-plugin.nvidia.com/gpu=0").build());
                    assertThat(r.getAnnotationsMap()).isEmpty();
                    assertThat(r.getEnvsMap()).isEmpty();
                }),
                new Strategy("envvar and cdi-annotations with a custom prefix", Map.of(
                        "DEVICE_LIST_STRATEGY", "envvar,cdi-annotations", "CDI_ANNOTATION_PREFIX", "cdi.example.com/"), (p, r) -> {
                    assertThat(r.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", p.gpuUuid(0));
                    assertThat(r.getAnnotationsMap().keySet()).singleElement().asString().startsWith("cdi.example.com/nvidia-device-plugin_");
                }),
                new Strategy("passDeviceSpecs with a dev root", Map.of("PASS_DEVICE_SPECS", "true"), (p, r) -> {
                    String root = p.dir.resolve("devroot").toString();
                    assertThat(r.getDevicesList()).containsExactly(
                            DeviceSpec.newBuilder().setContainerPath("/dev/nvidiactl").setHostPath(root + "/dev/nvidiactl").setPermissions("rw").build(),
                            DeviceSpec.newBuilder().setContainerPath("/dev/nvidia0").setHostPath(root + "/dev/nvidia0").setPermissions("rw").build());
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void deviceListAndIdStrategies(Strategy strategy) throws IOException {
        Path devRoot = dir.resolve("devroot");
        Files.createDirectories(devRoot.resolve("dev"));
        Files.writeString(devRoot.resolve("dev/nvidiactl"), "");
        MockNvmlPlugin.Builder builder = MockNvmlPlugin.builder(dir).env("NVIDIA_DEV_ROOT", devRoot.toString());
        strategy.env().forEach(builder::env);
        try (MockNvmlPlugin plugin = builder.start()) {
            plugin.await(GPU, r -> r.allocatable() == 1);

            strategy.check().accept(plugin, admit(plugin, GPU, 1).container().response());
        }
    }

    @Test
    void unknownDevicesAreRefusedWithInvalidArgument() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).start()) {
            plugin.await(GPU, r -> r.allocatable() == 1);

            assertThatThrownBy(() -> plugin.pluginClient("nvidia-gpu.sock").allocate(AllocateRequest.newBuilder()
                    .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds("GPU-not-here")).build()))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                        assertThat(e.getStatus().getDescription())
                                .isEqualTo("invalid allocation request for 'nvidia.com/gpu': unknown device: GPU-not-here");
                    });
        }
    }

    @Test
    void migNoneAdvertisesWholeGpus() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("mig-mixed").start()) {
            plugin.await(GPU, r -> r.allocatable() == 4);
            assertThat(plugin.kubelet.resources()).hasSize(1);
        }
    }

    @Test
    void migMixedAdvertisesAResourcePerProfile() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("mig-mixed")
                .env("MIG_STRATEGY", "mixed").env("DEVICE_ID_STRATEGY", "index").start()) {
            plugin.awaitCapacity(Map.of(
                    "nvidia.com/mig-1g.10gb", 9L, "nvidia.com/mig-1g.10gb.me", 1L,
                    "nvidia.com/mig-1g.20gb", 1L, "nvidia.com/mig-2g.20gb", 4L, // 2 whole, 2 of 1c.2g.20gb
                    "nvidia.com/mig-3g.40gb", 2L, "nvidia.com/mig-4g.40gb", 1L));
            assertThat(plugin.kubelet.resource("nvidia.com/mig-1g.10gb").orElseThrow().endpoint())
                    .isEqualTo("nvidia-mig-1g.10gb.sock");
            assertThat(plugin.kubelet.allocatable()).isEqualTo(plugin.kubelet.capacity());

            PodAllocation allocation = admit(plugin, "nvidia.com/mig-4g.40gb", 1);
            assertThat(allocation.container().envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", "2:0");

            PodAllocation me = admit(plugin, "nvidia.com/mig-1g.10gb.me", 1);
            assertThat(me.container().envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", "2:2");
        }
    }

    @Test
    void migSingleRefusesMixedProfilesWithOneLine() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("mig-mixed").env("MIG_STRATEGY", "single").start()) {
            Await.until(() -> !plugin.fatal.isEmpty(), "the supervisor giving up");
            assertThat(plugin.fatal).singleElement().asString()
                    .startsWith("flags.migStrategy was 'single' but it needs all MIG devices to be identical")
                    .doesNotContain("\n");
            assertThat(plugin.kubelet.resources()).isEmpty();
        }
    }

    @Test
    void migSingleAdvertisesIdenticalMigDevicesAsGpus() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile(Profiles.singleMig(dir))
                .env("MIG_STRATEGY", "single").start()) {
            ResourceState state = plugin.await(GPU, r -> r.allocatable() == 7);
            assertThat(state.deviceIds()).allMatch(id -> id.startsWith("MIG-"));

            PodAllocation allocation = admit(plugin, GPU, 1);
            assertThat(allocation.container().envs().get("NVIDIA_VISIBLE_DEVICES")).startsWith("MIG-");
        }
    }

    @Test
    void timeSlicingHonoursRenameDevicesAndFailRequestsGreaterThanOneWhenAsked() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100")
                .env("KGPU_HONOUR_SHARING_DEVICES", "true").config("""
                version: v1
                sharing:
                  timeSlicing:
                    renameByDefault: true
                    failRequestsGreaterThanOne: true
                    resources:
                    - name: nvidia.com/gpu
                      devices: [0]
                      replicas: 4
                """).start()) {
            ResourceState shared = plugin.await("nvidia.com/gpu.shared", r -> r.allocatable() == 4);
            assertThat(shared.deviceIds()).containsExactly(IntStream.range(0, 4)
                    .mapToObj(i -> plugin.gpuUuid(0) + "::" + i).toArray(String[]::new));
            assertThat(plugin.await(GPU, r -> r.allocatable() == 7).deviceIds()).doesNotContain(plugin.gpuUuid(0));

            PodAdmission two = plugin.kubelet.admit(PodSpec.of("two", "nvidia.com/gpu.shared", 2));
            assertThat(two).isInstanceOfSatisfying(PodAdmission.Failed.class, failed -> {
                assertThat(failed.reason()).isEqualTo("UnexpectedAdmissionError");
                assertThat(failed.message()).contains("InvalidArgument").contains("maximum request size for shared resources is 1");
            });
            PodAllocation one = admit(plugin, "nvidia.com/gpu.shared", 1);
            assertThat(one.container().envs()).containsEntry("NVIDIA_VISIBLE_DEVICES", plugin.gpuUuid(0));
        }
    }

    @Test
    void timeSlicingIgnoresRenameAndCountAsNvidiaDoes() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100").config("""
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      rename: nvidia.com/gpu-small
                      devices: 2
                      replicas: 3
                """).start()) {
            ResourceState state = plugin.await(GPU, r -> r.allocatable() == 24);
            assertThat(state.deviceIds()).as("every GPU shared, under NVIDIA's name").hasSize(24)
                    .allMatch(id -> id.contains("::"));
            assertThat(plugin.kubelet.resources()).extracting(ResourceState::resourceName)
                    .doesNotContain("nvidia.com/gpu-small");

            PodAllocation allocation = admit(plugin, GPU, 2);
            assertThat(allocation.container().envs().get("NVIDIA_VISIBLE_DEVICES"))
                    .as("time-slicing allows more than one replica by default").isNotBlank();
        }
    }

    @Test
    void mpsAddsItsPipeAndRefusesTwoReplicasByDefault() {
        String config = """
                version: v1
                flags:
                  mpsRoot: /run/nvidia/mps
                sharing:
                  mps:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 3
                """;
        Path root = dir.resolve("mps");
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).config(config)
                .env("KGPU_MPS_CONTAINER_ROOT", root.toString()).env("KGPU_MPS_CONTROL", MockMpsDaemon.fake().toString())
                .env("KGPU_HEALTH_CHECK_INTERVAL", "1s").start();
             MockMpsDaemon daemon = MockMpsDaemon.start(dir.resolve("agent"), config,
                     Map.of("KGPU_MPS_CONTAINER_ROOT", root.toString()))) {
            daemon.awaitReady();
            plugin.await(GPU, r -> r.allocatable() == 3);

            ContainerAllocateResponse response = admit(plugin, GPU, 1).container().response();
            assertThat(response.getEnvsMap()).containsEntry("CUDA_MPS_PIPE_DIRECTORY", "/mps/nvidia.com/gpu/pipe")
                    .containsEntry("NVIDIA_VISIBLE_DEVICES", plugin.gpuUuid(0));
            assertThat(response.getMountsList()).extracting(Mount::getContainerPath).containsExactly("/mps/nvidia.com/gpu/pipe", "/dev/shm");
            assertThat(plugin.kubelet.admit(PodSpec.of("two", GPU, 2))).isInstanceOf(PodAdmission.Failed.class);
        }
    }

    @Test
    void preferredAllocationTakesNvlinkPairsFirst() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile(Profiles.nvlinkPairs(dir)).start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);

            assertThat(admit(plugin, GPU, 2).deviceIds(GPU)).containsExactlyInAnyOrder(plugin.gpuUuid(0), plugin.gpuUuid(2));
            assertThat(admit(plugin, GPU, 2).deviceIds(GPU)).containsExactlyInAnyOrder(plugin.gpuUuid(1), plugin.gpuUuid(3));

            List<String> all = IntStream.range(0, 8).mapToObj(plugin::gpuUuid).toList();
            List<String> withFive = plugin.pluginClient("nvidia-gpu.sock").getPreferredAllocation(PreferredAllocationRequest.newBuilder()
                    .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder()
                            .addAllAvailableDeviceIDs(all).addMustIncludeDeviceIDs(plugin.gpuUuid(5)).setAllocationSize(2))
                    .build()).getContainerResponses(0).getDeviceIDsList();
            assertThat(withFive).containsExactly(plugin.gpuUuid(5), plugin.gpuUuid(7));
        }
    }

    @Test
    void preferredAllocationOnTheDgxA100FollowsPcieBehindTheNvSwitches() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100").start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);

            // every pair has 12 NVLinks through the switches; (4,5) and (0,1) share a PCIe switch, and
            // (4,5) is the one whose GPUs are least tied to the rest
            assertThat(admit(plugin, GPU, 2).deviceIds(GPU)).containsExactlyInAnyOrder(plugin.gpuUuid(4), plugin.gpuUuid(5));
            assertThat(admit(plugin, GPU, 2).deviceIds(GPU)).containsExactlyInAnyOrder(plugin.gpuUuid(0), plugin.gpuUuid(1));
            List<String> four = admit(plugin, GPU, 4).deviceIds(GPU);
            assertThat(four).containsExactlyInAnyOrder(plugin.gpuUuid(2), plugin.gpuUuid(3), plugin.gpuUuid(6), plugin.gpuUuid(7));
        }
    }

    static String gpuOf(String replicaId) {
        assertThat(replicaId).as("a replica ID").contains("::");
        return replicaId.substring(0, replicaId.indexOf("::"));
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"distributed", "packed"})
    void replicaPolicies(String policy) {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100")
                .env("SHARED_DEVICES_ALLOCATION_POLICY", policy).config("""
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """).start()) {
            plugin.await(GPU, r -> r.capacity() == 32);

            List<String> gpus = IntStream.range(0, 3).mapToObj(i -> gpuOf(admit(plugin, GPU, 1).deviceIds(GPU).getFirst())).toList();

            if (policy.equals("distributed")) {
                assertThat(gpus).containsExactly(plugin.gpuUuid(0), plugin.gpuUuid(1), plugin.gpuUuid(2));
            } else {
                assertThat(gpus).containsExactly(plugin.gpuUuid(0), plugin.gpuUuid(0), plugin.gpuUuid(0));
            }
        }
    }
}
