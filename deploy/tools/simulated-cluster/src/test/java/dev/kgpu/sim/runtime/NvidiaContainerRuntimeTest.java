package dev.kgpu.sim.runtime;

import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.sim.runtime.ContainerRuntime.ContainerOutcome;
import dev.kgpu.sim.runtime.ContainerRuntime.ContainerStart;
import dev.kgpu.sim.runtime.SimulatedGpus.Gpu;
import dev.kgpu.sim.runtime.SimulatedGpus.Mig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class NvidiaContainerRuntimeTest {

    private static final String FULL = "GPU-11111111-1111-4111-8111-111111111111";
    private static final String MIG_PARENT = "GPU-22222222-2222-4222-8222-222222222222";
    private static final String MIG = "MIG-33333333-3333-4333-8333-333333333333";
    private static final String SAMPLE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0";

    /** GPU 0 with MIG off, GPU 1 with MIG on and one MIG device. */
    private static final SimulatedGpus NODE = SimulatedGpus.of("550.54.15", List.of(
            new Gpu(0, FULL, "NVIDIA A100-SXM4-80GB", 0, "0000:07:00.0", false, false, List.of()),
            new Gpu(1, MIG_PARENT, "NVIDIA A100-SXM4-80GB", 1, "0000:0f:00.0", false, true,
                    List.of(new Mig(0, MIG, "1g.10gb")))));

    private static final String PLUGIN_KIND = "k8s.device-plugin.nvidia.com/gpu";

    /** The node's /etc/cdi and /var/run/cdi, with the plugin's spec naming GPU 0 and the MIG device by UUID. */
    @TempDir
    static Path cdi;

    private static NvidiaContainerRuntime runtime;

    @BeforeAll
    static void writeSpecs() {
        CdiSpec.ContainerEdits common = new CdiSpec.ContainerEdits(List.of("NVIDIA_VISIBLE_DEVICES=void"),
                List.of(CdiSpec.DeviceNode.of("/dev/nvidiactl", "/node/dev/nvidiactl")), List.of(),
                List.of(new CdiSpec.Mount("/node/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
                        "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", List.of("ro"))));
        for (String kind : List.of(PLUGIN_KIND, "nvidia.com/gpu")) {
            new CdiSpecWriter(cdi.resolve("var/run/cdi")).write(new CdiSpec("0.5.0", kind, Map.of(), List.of(
                    new CdiSpec.Device(FULL, new CdiSpec.ContainerEdits(List.of(),
                            List.of(CdiSpec.DeviceNode.of("/dev/nvidia0", "/node/dev/nvidia0")), List.of(), List.of())),
                    new CdiSpec.Device(MIG, new CdiSpec.ContainerEdits(List.of(),
                            List.of(CdiSpec.DeviceNode.of("/dev/nvidia1", "/node/dev/nvidia1")), List.of(), List.of()))),
                    common));
        }
        runtime = new NvidiaContainerRuntime(NODE, Optional.of("registry.example/my-sample:1"),
                new CdiInjection(List.of(cdi.resolve("etc/cdi"), cdi.resolve("var/run/cdi"))));
    }

    record Case(String description, DeviceInjection injection, Map<String, String> env, int exitCode, List<String> devices) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Case> vectorAddCases() {
        return Stream.of(
                new Case("envvar strategy, a GPU by UUID", envs(FULL), Map.of(), 0, List.of(FULL)),
                new Case("envvar strategy, a MIG device by UUID", envs(MIG), Map.of(), 0, List.of(MIG)),
                new Case("a GPU whose MIG mode is on, given whole: CUDA sees no device", envs(MIG_PARENT), Map.of(), 1,
                        List.of(MIG_PARENT)),
                new Case("index strategy, GPU 0", envs("0"), Map.of(), 0, List.of("0")),
                new Case("index strategy, MIG device 1:0", envs("1:0"), Map.of(), 0, List.of("1:0")),
                new Case("volume-mounts strategy", new DeviceInjection(
                        Map.of("NVIDIA_VISIBLE_DEVICES", "/var/run/nvidia-container-devices"),
                        List.of("/var/run/nvidia-container-devices/" + FULL), Map.of(), List.of()), Map.of(), 0, List.of(FULL)),
                new Case("cdi-annotations strategy", new DeviceInjection(Map.of(), List.of(),
                        Map.of("cdi.k8s.io/nvidia-device-plugin_abc", "nvidia.com/gpu=" + FULL), List.of()), Map.of(), 0,
                        List.of(FULL)),
                new Case("cdi-cri strategy", new DeviceInjection(Map.of(), List.of(), Map.of(), List.of("nvidia.com/gpu=" + MIG)),
                        Map.of(), 0, List.of(MIG)),
                new Case("the device plugin's CDI kind", new DeviceInjection(Map.of(), List.of(), Map.of(),
                        List.of(PLUGIN_KIND + "=" + FULL)), Map.of(), 0, List.of(FULL)),
                new Case("no allocation, NVIDIA_VISIBLE_DEVICES=all in the pod (NVIDIA's validator)", DeviceInjection.none(),
                        Map.of("NVIDIA_VISIBLE_DEVICES", "all"), 0, List.of(FULL, MIG)),
                new Case("the allocation's variable wins over the pod's", envs(MIG_PARENT),
                        Map.of("NVIDIA_VISIBLE_DEVICES", FULL), 1, List.of(MIG_PARENT)),
                new Case("NVIDIA_VISIBLE_DEVICES=void", DeviceInjection.none(), Map.of("NVIDIA_VISIBLE_DEVICES", "void"), 1, List.of()),
                new Case("no GPU at all", DeviceInjection.none(), Map.of(), 1, List.of()));
    }

    private static ContainerStart container(String name, String image, Map<String, String> env, DeviceInjection devices) {
        return new ContainerStart("ml", "p", name, image, env, devices);
    }

    private static DeviceInjection envs(String visible) {
        return new DeviceInjection(Map.of("NVIDIA_VISIBLE_DEVICES", visible), List.of(), Map.of(), List.of());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectorAddCases")
    void vectorAddPassesOnlyWithADeviceCudaCanRunOn(Case c) {
        ContainerStart container = container("cuda", SAMPLE, c.env(), c.injection());

        assertThat(runtime.requestedDevices(container)).containsExactlyElementsOf(c.devices());
        ContainerOutcome outcome = runtime.start(container);

        assertThat(outcome).isInstanceOfSatisfying(ContainerOutcome.Exited.class, exited -> {
            assertThat(exited.exitCode()).isEqualTo(c.exitCode());
            if (c.exitCode() == 0) {
                assertThat(exited.reason()).isEqualTo("Completed");
                assertThat(exited.log()).contains("Test PASSED").endsWith("Done\n");
            } else {
                assertThat(exited.reason()).isEqualTo("Error");
                assertThat(exited.log()).contains("Failed to allocate device vector A (error code no CUDA-capable device is detected)!")
                        .doesNotContain("Test PASSED");
            }
        });
    }

    @Test
    void anUnknownDeviceFailsTheContainerAtStartAsTheToolkitDoes() {
        ContainerOutcome outcome = runtime.start(container("cuda", SAMPLE, Map.of(), envs("GPU-deadbeef")));

        assertThat(outcome).isInstanceOfSatisfying(ContainerOutcome.Exited.class, exited -> {
            assertThat(exited.exitCode()).isEqualTo(128);
            assertThat(exited.reason()).isEqualTo("StartError");
            assertThat(exited.message()).endsWith("nvidia-container-cli: device error: GPU-deadbeef: unknown device");
        });
    }

    @Test
    void anUnresolvableCdiNameFailsTheContainerWithContainerdsError() {
        ContainerOutcome outcome = runtime.start(container("cuda", SAMPLE, Map.of(), new DeviceInjection(Map.of(),
                List.of(), Map.of(), List.of(PLUGIN_KIND + "=" + FULL, PLUGIN_KIND + "=GPU-deadbeef"))));

        assertThat(outcome).isInstanceOfSatisfying(ContainerOutcome.Exited.class, exited -> {
            assertThat(exited.exitCode()).isEqualTo(128);
            assertThat(exited.reason()).isEqualTo("StartError");
            assertThat(exited.message()).isEqualTo("failed to create containerd container: CDI device injection failed:"
                    + " unresolvable CDI devices " + PLUGIN_KIND + "=GPU-deadbeef");
        });
    }

    @Test
    void aContainerGivenCdiDevicesSeesTheirNodesAndLibraries() {
        ContainerOutcome outcome = runtime.start(container("main", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
                Map.of(), new DeviceInjection(Map.of(), List.of(), Map.of(), List.of(PLUGIN_KIND + "=" + FULL))));

        assertThat(outcome).isInstanceOfSatisfying(ContainerOutcome.Running.class, running -> assertThat(running.log())
                .contains("GPU 0: NVIDIA A100-SXM4-80GB (UUID: " + FULL + ")",
                        "CDI devices " + PLUGIN_KIND + "=" + FULL + " gave it:",
                        "  device node /dev/nvidiactl (host /node/dev/nvidiactl)",
                        "  device node /dev/nvidia0 (host /node/dev/nvidia0)",
                        "  mount /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
                        "  env NVIDIA_VISIBLE_DEVICES=void"));
    }

    @Test
    void otherContainersKeepRunningAndListTheirGpus() {
        ContainerOutcome outcome = runtime.start(container("main", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
                Map.of(), envs(FULL + "," + MIG)));

        assertThat(outcome).isInstanceOfSatisfying(ContainerOutcome.Running.class, running -> assertThat(running.log())
                .contains("GPU 0: NVIDIA A100-SXM4-80GB (UUID: " + FULL + ")",
                        "MIG 1g.10gb Device 0 of GPU 1: (UUID: " + MIG + ")"));
    }

    @Test
    void theSampleImageIsAVectorAddNameOrTheConfiguredOne() {
        assertThat(runtime.isVectorAdd(SAMPLE)).isTrue();
        assertThat(runtime.isVectorAdd("nvidia/samples:vectoradd-cuda11.2.1")).isTrue();
        assertThat(runtime.isVectorAdd("registry.example/my-sample:1")).isTrue();
        assertThat(runtime.isVectorAdd("nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04")).isFalse();
    }
}
