package dev.kgpu.plugin.testing;

import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.SimulatedDriverRoot;
import dev.kgpu.plugin.dra.DraNames;
import dev.kgpu.plugin.dra.config.OpaqueConfigs;
import dev.kgpu.sim.apiserver.TestApiServer;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the DRA driver's tests and benchmark share, in-process or against the packaged plugin: claims as the scheduler
 * leaves them, a simulated driver root, and the environment of the packaged plugin running only the DRA driver.
 */
public final class DraFixtures {

    private DraFixtures() {
    }

    /**
     * A claim of one request {@code gpu} (device class {@code gpu.nvidia.com}), allocated {@code device} of
     * {@code node}'s pool, as the scheduler leaves it; with {@code opaque} as the claim's config of
     * {@code gpu.nvidia.com} for that request ({@code FromClaim}) when given.
     */
    public static ResourceClaim allocatedClaim(String namespace, String name, String node, String device,
                                               Optional<Map<String, Object>> opaque) {
        List<DeviceAllocationConfiguration> config = opaque.map(parameters -> List.of(
                new DeviceAllocationConfigurationBuilder().withSource("FromClaim").withRequests("gpu").withNewOpaque()
                        .withDriver(DraNames.DRIVER).withParameters(parameters).endOpaque().build())).orElse(List.of());
        return new ResourceClaimBuilder()
                .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName("gpu").withNewExactly()
                .withDeviceClassName("gpu.nvidia.com").endExactly().endRequest().endDevices().endSpec()
                .withNewStatus().withNewAllocation().withNewDevices().addNewResult().withRequest("gpu")
                .withDriver(DraNames.DRIVER).withPool(node).withDevice(device).endResult().withConfig(config)
                .endDevices().endAllocation().endStatus()
                .build();
    }

    /** {@link #allocatedClaim}, created in {@code api}; returns it as the API server keeps it (with its UID). */
    public static ResourceClaim createClaim(TestApiServer api, String namespace, String name, String node, String device,
                                            Optional<Map<String, Object>> opaque) {
        return api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace(namespace)
                .resource(allocatedClaim(namespace, name, node, device, opaque)).create();
    }

    /** A string attribute of a ResourceSlice's device. */
    public static DeviceAttribute text(String value) {
        return new DeviceAttributeBuilder().withString(value).build();
    }

    /** An int attribute of a ResourceSlice's device. */
    public static DeviceAttribute number(long value) {
        return new DeviceAttributeBuilder().withInt(value).build();
    }

    /** A version attribute of a ResourceSlice's device. */
    public static DeviceAttribute version(String value) {
        return new DeviceAttributeBuilder().withVersion(value).build();
    }

    /** NVIDIA's opaque {@code GpuConfig} asking for time-slicing at {@code interval}. */
    public static Map<String, Object> timeSlicedGpu(String interval) {
        return gpuConfig(Map.of("strategy", "TimeSlicing", "timeSlicingConfig", Map.of("interval", interval)));
    }

    /** NVIDIA's opaque {@code GpuConfig} with {@code sharing} as its {@code sharing}. */
    public static Map<String, Object> gpuConfig(Map<String, Object> sharing) {
        return Map.of("apiVersion", OpaqueConfigs.API_VERSION, "kind", OpaqueConfigs.GPU_CONFIG, "sharing", sharing);
    }

    /**
     * The simulated driver root of {@code profile} at {@code root}, as the simulated node lays it out (devices, MIG
     * capabilities, libraries, a boot id). Switches this JVM's mock NVML to {@code profile}.
     */
    public static Path driverRoot(Path root, String profile) throws IOException {
        MockNvml.load().useProfile(profile);
        try (Nvml nvml = Nvml.open()) {
            SimulatedDriverRoot.write(root, nvml.driverVersion(), SimulatedDriverRoot.gpusOf(nvml), Optional.of(nvml.libraryPath()));
        }
        return root;
    }

    /**
     * The environment of the packaged plugin ({@link dev.kgpu.agent.testing.PackagedAgent}) running only the DRA driver
     * ({@code KGPU_KUBELET_APIS=dra}) for {@code node} on the mock NVML's {@code profile}, against {@code api}, with
     * the kubelet's folders, the CDI root, the PodResources socket and the device manager's checkpoint under
     * {@code work}. A driver root, when a test
     * wants one, is added with {@link #withDriverRoot}.
     */
    public static Map<String, String> packagedEnvironment(Path work, TestApiServer api, String node, String profile) {
        return new HashMap<>(Map.ofEntries(Map.entry("KGPU_KUBELET_APIS", "dra"),
                Map.entry("NODE_NAME", node), Map.entry("MOCK_NVML_PROFILE", profile),
                Map.entry("CDI_ROOT", work.resolve("cdi").toString()),
                Map.entry("KUBELET_REGISTRAR_DIRECTORY_PATH", work.resolve("plugins_registry").toString()),
                Map.entry("KUBELET_PLUGINS_DIRECTORY_PATH", work.resolve("plugins").toString()),
                Map.entry("KGPU_POD_RESOURCES_SOCKET", work.resolve("pod-resources/kubelet.sock").toString()),
                Map.entry("KGPU_DEVICE_MANAGER_CHECKPOINT", work.resolve("device-plugins/kubelet_internal_checkpoint").toString()),
                Map.entry("KUBERNETES_MASTER", api.url()), Map.entry("KUBERNETES_AUTH_TRYKUBECONFIG", "false"),
                Map.entry("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false"), Map.entry("QUARKUS_HTTP_PORT", "0")));
    }

    /** {@code env} with {@code root} as the driver root, the container's driver root and the proc root. */
    public static Map<String, String> withDriverRoot(Map<String, String> env, Path root) {
        Map<String, String> with = new HashMap<>(env);
        with.put("CONTAINER_DRIVER_ROOT", root.toString());
        with.put("NVIDIA_DRIVER_ROOT", root.toString());
        with.put("KGPU_PROC_ROOT", root.toString());
        return with;
    }
}
