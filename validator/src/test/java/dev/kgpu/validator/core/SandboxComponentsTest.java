package dev.kgpu.validator.core;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.validator.ValidationPlan;
import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.adapters.KubernetesCluster;
import dev.kgpu.validator.config.ValidatorSettings;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * gpu-operator's sandbox components ({@code cc-manager}, {@code vfio-pci}, {@code vgpu-devices}, as its
 * {@code nvidia-sandbox-validator} DaemonSet runs them) through the real settings, plan, pass and adapters: the
 * node's labels from a Kubernetes API server (fabric8's mock server in CRUD mode) and a fake host root
 * ({@code KGPU_HOST_ROOT}) laid out as sysfs is, links included.
 */
@EnableKubernetesMockClient(crud = true)
class SandboxComponentsTest {

    static final String NODE = "gpu-node-1";
    static KubernetesClient client;

    @TempDir
    Path dir;

    @BeforeEach
    void node() {
        client.nodes().delete();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
    }

    void label(String key, String value) {
        client.nodes().withName(NODE).edit(n -> {
            Map<String, String> labels = new HashMap<>(n.getMetadata().getLabels() == null ? Map.of()
                    : n.getMetadata().getLabels());
            labels.put(key, value);
            n.getMetadata().setLabels(labels);
            return n;
        });
    }

    List<String> run(String component, Map<String, String> more) throws InterruptedException {
        Map<String, String> env = new HashMap<>(Map.of("COMPONENT", component, "NODE_NAME", NODE,
                "KGPU_HOST_ROOT", dir.resolve("host").toString(), "OUTPUT_DIR", dir.resolve("validations").toString()));
        env.putAll(more);
        ValidatorSettings settings = ValidatorSettings.load(new String[0], env::get);
        GpuDriver noDriver = () -> {
            throw new IllegalStateException("not asked for");
        };
        return ValidationPlan.build(settings, noDriver, () -> new KubernetesCluster(client),
                new DirectoryStatusFiles(settings.outputDir()), Clock.systemUTC(), Sleeper.system())
                .run(ValidationPass.FilePolicy.REMOVE_FIRST).stream().map(Verdict::line).toList();
    }

    List<String> run(String component) throws InterruptedException {
        return run(component, Map.of());
    }

    /** A PCI function as sysfs has it: {@code sys/devices/pci0000:00/<bus ID>}, linked from {@code sys/bus/pci/devices}. */
    Path function(String busId, int vendor, int pciClass, String driver) throws IOException {
        Path function = Files.createDirectories(dir.resolve("host/sys/devices/pci0000:00").resolve(busId));
        Files.writeString(function.resolve("vendor"), "0x%04x\n".formatted(vendor));
        Files.writeString(function.resolve("class"), "0x%06x\n".formatted(pciClass));
        bind(busId, driver);
        Path bus = Files.createDirectories(dir.resolve("host/sys/bus/pci/devices"));
        Files.createSymbolicLink(bus.resolve(busId), Path.of("../../../devices/pci0000:00").resolve(busId));
        return function;
    }

    void bind(String busId, String driver) throws IOException {
        Path link = dir.resolve("host/sys/devices/pci0000:00").resolve(busId).resolve("driver");
        Files.deleteIfExists(link);
        if (driver != null) {
            Files.createSymbolicLink(link, Path.of("../../../bus/pci/drivers").resolve(driver));
        }
    }

    /** A vGPU (mediated) device of {@code parent}, linked from {@code sys/bus/mdev/devices} as the mdev bus links it. */
    void mediatedDevice(String parent, String uuid) throws IOException {
        Files.createDirectories(dir.resolve("host/sys/devices/pci0000:00").resolve(parent).resolve(uuid));
        Path bus = Files.createDirectories(dir.resolve("host/sys/bus/mdev/devices"));
        Files.createSymbolicLink(bus.resolve(uuid), Path.of("../../../devices/pci0000:00").resolve(parent).resolve(uuid));
    }

    String file(String name) throws IOException {
        Path file = dir.resolve("validations").resolve(name);
        return Files.exists(file) ? Files.readString(file) : null;
    }

    @Test
    void vfioPciIsSkippedOffVmPassthroughAndRecordsTheWorkload() throws Exception {
        function("0000:3b:00.0", 0x10de, 0x030200, "nvidia");

        assertThat(run("vfio-pci")).containsExactly("vfio-pci PASSED skipped: this node's GPU workload is container"
                + " (label nvidia.com/gpu.workload.config, else DEFAULT_GPU_WORKLOAD_CONFIG), not vm-passthrough");
        assertThat(file("workload-type")).isEqualTo("container\n");
        assertThat(file("vfio-pci-ready")).as("NVIDIA writes no file when it skips").isNull();

        label(GpuWorkload.LABEL, "vm-vgpu");
        run("vfio-pci");
        assertThat(file("workload-type")).isEqualTo("vm-vgpu\n");
        label(GpuWorkload.LABEL, "kubevirt");
        assertThat(run("vfio-pci", Map.of("DEFAULT_GPU_WORKLOAD_CONFIG", "vm-vgpu")))
                .as("a label naming no workload falls back to the default, as NVIDIA's does").singleElement()
                .asString().contains("workload is vm-vgpu");
    }

    @Test
    void vfioPciNeedsEveryGpuBoundToVfio() throws Exception {
        label(GpuWorkload.LABEL, "vm-passthrough");
        function("0000:3b:00.0", 0x10de, 0x030200, "vfio-pci");
        function("0000:3b:00.1", 0x10de, 0x040300, "snd_hda_intel"); // the GPU's audio function
        function("0000:86:00.0", 0x10de, 0x030000, "nvidia");
        function("0000:05:00.0", 0x15b3, 0x020000, "mlx5_core");

        assertThat(run("vfio-pci")).containsExactly("vfio-pci FAILED driver: GPU 0000:86:00.0 is bound to 'nvidia',"
                + " not vfio-pci; vm-passthrough needs every GPU bound to vfio-pci (gpu-operator's vfio-manager binds"
                + " them)");
        assertThat(file("workload-type")).isEqualTo("vm-passthrough\n");
        bind("0000:86:00.0", null);
        assertThat(run("vfio-pci")).singleElement().asString().contains("GPU 0000:86:00.0 is bound to no driver");

        bind("0000:86:00.0", "nvgrace_gpu_vfio_pci");
        assertThat(run("vfio-pci")).containsExactly("vfio-pci PASSED 2 GPUs bound to vfio-pci (vm-passthrough)");
        assertThat(file("vfio-pci-ready")).isEmpty();
    }

    @Test
    void vgpuDevicesNeedAMediatedDeviceOfAnNvidiaGpu() throws Exception {
        assertThat(run("vgpu-devices", Map.of("DEFAULT_GPU_WORKLOAD_CONFIG", "vm-vgpu"))).singleElement().asString()
                .startsWith("vgpu-devices FAILED driver: could not list " + dir.resolve("host/sys/bus/mdev/devices"));
        assertThat(file("workload-type")).isEqualTo("vm-vgpu\n");

        label(GpuWorkload.LABEL, "vm-vgpu");
        function("0000:3b:00.0", 0x10de, 0x030200, "nvidia");
        function("0000:05:00.0", 0x1af4, 0x020000, "virtio-pci");
        mediatedDevice("0000:05:00.0", "c0b26072-dd1b-4340-84fe-bf338c510818"); // not of a GPU
        assertThat(run("vgpu-devices")).containsExactly("vgpu-devices FAILED driver: no vGPU devices on this node (no"
                + " mediated device of an NVIDIA GPU in /sys/bus/mdev/devices); vm-vgpu needs them (gpu-operator's"
                + " vgpu-device-manager creates them)");

        mediatedDevice("0000:3b:00.0", "2d7b9b5e-1b43-4b7c-9c6e-0f5b1f2f5a01");
        mediatedDevice("0000:3b:00.0", "8f4a3c1e-7d2b-4e6f-a1c3-5b9d0e7f2a44");
        assertThat(run("vgpu-devices")).containsExactly("vgpu-devices PASSED 2 vGPU devices (vm-vgpu)");
        assertThat(file("vgpu-devices-ready")).isEmpty();
        assertThat(run("vgpu-devices", Map.of("DEFAULT_GPU_WORKLOAD_CONFIG", "container")))
                .as("the label wins over the default").singleElement().asString().contains("PASSED 2 vGPU devices");
    }

    @Test
    void ccManagerWaitsForTheManagerOnlyOnCcCapableNodes() throws Exception {
        assertThat(run("cc-manager")).containsExactly("cc-manager PASSED not a confidential-computing node (label"
                + " nvidia.com/cc.capable is not true): nothing to wait for");
        assertThat(file("cc-manager-ready")).as("NVIDIA writes it on any node").isEmpty();

        label(CcManagerValidator.CC_CAPABLE, "true");
        assertThat(run("cc-manager")).containsExactly("cc-manager FAILED driver: the CC manager is not ready:"
                + " OUTPUT_DIR/.cc-manager-ctr-ready does not exist (gpu-operator's k8s-cc-manager writes it once the"
                + " CC mode is applied)");
        assertThat(file("cc-manager-ready")).isNull();

        Files.writeString(dir.resolve("validations/.cc-manager-ctr-ready"), "");
        assertThat(run("cc-manager")).containsExactly("cc-manager PASSED the CC manager is ready (.cc-manager-ctr-ready)");
        assertThat(file("cc-manager-ready")).isEmpty();
    }

    @Test
    void aNodeThatDoesNotExistFailsNamingIt() throws Exception {
        client.nodes().delete();
        assertThat(run("vfio-pci")).containsExactly("vfio-pci FAILED api: node gpu-node-1 does not exist (NODE_NAME"
                + " must be this node's name, from the pod's spec.nodeName)");
    }

    @Test
    void settingsNeedTheNodeAndAKnownDefaultWorkload() {
        Map<String, String> env = Map.of("COMPONENT", "vgpu-devices");
        assertThatThrownBy(() -> ValidatorSettings.load(new String[0], env::get)).isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("NODE_NAME was '' but it must name this node for the");
        Map<String, String> badDefault = Map.of("COMPONENT", "vfio-pci", "NODE_NAME", NODE,
                "DEFAULT_GPU_WORKLOAD_CONFIG", "vm");
        assertThatThrownBy(() -> ValidatorSettings.load(new String[0], badDefault::get))
                .hasMessageContaining("DEFAULT_GPU_WORKLOAD_CONFIG was 'vm' but it must be one of container,"
                        + " vm-passthrough, vm-vgpu");
    }
}
