package dev.kgpu.cdi;

import dev.kgpu.cdi.NvidiaCdiGenerator.NameStrategy;
import dev.kgpu.nvml.mock.SimulatedDriverRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NvidiaCdiGeneratorTest {

    private static final String LIB = "/usr/lib/x86_64-linux-gnu";

    @TempDir
    Path root;

    /**
     * nvidia-ctk's own golden test ({@code cmd/nvidia-ctk/cdi/generate/generate_test.go}): its root file system
     * {@code testdata/lookup/rootfs-1} rebuilt here, one GPU, index names and the merged {@code all} device, and
     * each case's expected spec compared as a whole.
     */
    @ParameterizedTest
    @CsvSource({"default,''", "disableHooks1,enable-cuda-compat", "disableHooks2,enable-cuda-compat update-ldcache",
            "disableHooksAll,all"})
    void matchesNvidiaCtkGenerateOnItsGoldenRootFileSystem(String testCase, String disabledHooks) throws IOException {
        for (String file : List.of("dev/nvidia0", "dev/nvidiactl", "dev/nvidia-caps/nvidia-cap1", "dev/gdrdrv",
                "dev/nvidia-fs0", "dev/nvidia-nvswitch0", "dev/nvidia-nvswitchctl", "etc/cufile.json",
                "lib/x86_64-linux-gnu/libcuda.so.999.88.77", "lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.999.88.77",
                "run/udev/.gitkeep")) {
            Files.createDirectories(root.resolve(file).getParent());
            Files.writeString(root.resolve(file), "");
        }
        Files.createSymbolicLink(root.resolve("lib/x86_64-linux-gnu/libcuda.so.1"), Path.of("libcuda.so.999.88.77"));
        NvidiaCdiGenerator.Options options = new NvidiaCdiGenerator.Options("example.com/device", root, root, root, root,
                root, root, "/usr/bin/nvidia-cdi-hook", List.of(NameStrategy.INDEX), true,
                disabledHooks.isBlank() ? Set.of() : Set.of(disabledHooks.split(" ")));
        NvidiaCdiGenerator.Gpu gpu = new NvidiaCdiGenerator.Gpu(0, "GPU-36cdf7f8-ea0f-4a5d-2f3b-9a0d1c7e5b44", 0,
                "0000:07:00.0", false, List.of());

        CdiSpec generated = NvidiaCdiGenerator.generate(options, "999.88.77", List.of(gpu));

        String expected = CdiTestNodes.resource("nvidia-ctk-generate/" + testCase + ".yaml").replace("{{ .driverRoot }}", root.toString());
        assertThat(generated).isEqualTo(CdiJson.parse(expected, testCase + ".yaml"));
    }

    @Test
    void devicePluginSpecOfAWholeGpuNodeNamesEachGpuByUuidAndHoldsTheDriver() {
        CdiTestNodes.Node node = CdiTestNodes.simulated("dgx-a100", root);
        String host = root.toString();

        CdiSpec spec = NvidiaCdiGenerator.generate(CdiTestNodes.options(root, NameStrategy.UUID), node.driverVersion(), node.gpus());

        assertThat(spec.kind()).isEqualTo("k8s.device-plugin.nvidia.com/gpu");
        assertThat(spec.cdiVersion()).as("hostPath needs 0.5.0").isEqualTo("0.5.0");
        assertThat(spec.devices()).extracting(CdiSpec.Device::name)
                .containsExactlyElementsOf(node.gpus().stream().map(NvidiaCdiGenerator.Gpu::uuid).toList());
        CdiSpec.Device gpu3 = spec.devices().get(3);
        assertThat(gpu3.containerEdits().deviceNodes())
                .containsExactly(CdiSpec.DeviceNode.of("/dev/nvidia3", host + "/dev/nvidia3"));
        assertThat(gpu3.containerEdits().mounts()).isEmpty();

        CdiSpec.ContainerEdits common = spec.containerEdits();
        assertThat(common.env()).containsExactly("NVIDIA_CTK_LIBCUDA_DIR=" + LIB, "NVIDIA_VISIBLE_DEVICES=void");
        assertThat(common.deviceNodes()).extracting(CdiSpec.DeviceNode::path)
                .containsExactly("/dev/nvidia-modeset", "/dev/nvidia-uvm-tools", "/dev/nvidia-uvm", "/dev/nvidiactl");
        assertThat(common.mounts()).extracting(CdiSpec.Mount::containerPath).containsExactly(
                LIB + "/libcuda.so.550.54.15", LIB + "/libcudadebugger.so.550.54.15",
                LIB + "/libnvidia-allocator.so.550.54.15", LIB + "/libnvidia-cfg.so.550.54.15",
                LIB + "/libnvidia-gpucomp.so.550.54.15", LIB + "/libnvidia-ml.so.550.54.15",
                LIB + "/libnvidia-nvvm.so.550.54.15", LIB + "/libnvidia-opencl.so.550.54.15",
                LIB + "/libnvidia-ptxjitcompiler.so.550.54.15", LIB + "/vdpau/libvdpau_nvidia.so.550.54.15",
                "/lib/firmware/nvidia/550.54.15/gsp_ga10x.bin", "/lib/firmware/nvidia/550.54.15/gsp_tu10x.bin",
                "/usr/bin/nvidia-smi", "/usr/bin/nvidia-debugdump", "/usr/bin/nvidia-persistenced",
                "/usr/bin/nvidia-cuda-mps-control", "/usr/bin/nvidia-cuda-mps-server");
        assertThat(common.mounts()).allSatisfy(m -> {
            assertThat(m.hostPath()).isEqualTo(host + m.containerPath());
            assertThat(m.options()).containsExactly("ro", "nosuid", "nodev", "rbind", "rprivate");
        });
        assertThat(common.hooks()).extracting(h -> h.args().subList(0, 3)).containsExactly(
                List.of("nvidia-ctk", "hook", "create-symlinks"), List.of("nvidia-ctk", "hook", "enable-cuda-compat"),
                List.of("nvidia-ctk", "hook", "update-ldcache"), List.of("nvidia-ctk", "hook", "disable-device-node-modification"),
                List.of("nvidia-ctk", "hook", "update-application-profile"));
        assertThat(common.hooks()).allSatisfy(h -> {
            assertThat(h.hookName()).isEqualTo("createContainer");
            assertThat(h.path()).isEqualTo("/usr/bin/nvidia-ctk");
            assertThat(h.env()).containsExactly("NVIDIA_CTK_DEBUG=false");
        });
        // libcuda's development link, and the mock NVML's SONAME read from its ELF dynamic section (the stub
        // libraries are no ELF files: no SONAME, as nvidia-ctk finds for them)
        assertThat(common.hooks().get(0).args().subList(3, common.hooks().get(0).args().size())).containsExactly(
                "--link", "libcuda.so.1::" + LIB + "/libcuda.so",
                "--link", "libnvidia-ml.so.550.54.15::" + LIB + "/libnvidia-ml.so.1");
        assertThat(common.hooks().get(2).args()).endsWith("--folder", LIB, "--folder", LIB + "/vdpau");
        assertThat(common.hooks().get(1).args()).endsWith("--host-driver-version=550.54.15");
    }

    @Test
    void migDevicesTakeTheirParentsNodeAndTheirCapabilityNodesFromMigMinors() {
        CdiTestNodes.Node node = CdiTestNodes.simulated("mig-mixed", root);

        CdiSpec spec = NvidiaCdiGenerator.generate(CdiTestNodes.options(root, NameStrategy.INDEX), node.driverVersion(), node.gpus());

        List<String> expectedNames = new ArrayList<>();
        for (NvidiaCdiGenerator.Gpu gpu : node.gpus()) {
            gpu.migDevices().forEach(m -> expectedNames.add(gpu.index() + ":" + m.index()));
        }
        assertThat(spec.devices()).extracting(CdiSpec.Device::name)
                .as("GPUs with MIG on appear only through their MIG devices").containsExactlyElementsOf(expectedNames);
        NvidiaCdiGenerator.Gpu gpu3 = node.gpus().get(3);
        NvidiaCdiGenerator.Mig mig = gpu3.migDevices().get(2);   // GI 3, CI 1: 1c.2g.20gb
        assertThat(mig.gpuInstanceId()).isEqualTo(3);
        assertThat(mig.computeInstanceId()).isEqualTo(1);
        int giMinor = SimulatedDriverRoot.gpuInstanceCapMinor(gpu3.minor(), 3);
        int ciMinor = SimulatedDriverRoot.computeInstanceCapMinor(gpu3.minor(), 3, 1);
        assertThat(spec.device("3:2").orElseThrow().containerEdits().deviceNodes()).extracting(CdiSpec.DeviceNode::path)
                .containsExactly("/dev/nvidia" + gpu3.minor(), "/dev/nvidia-caps/nvidia-cap" + giMinor,
                        "/dev/nvidia-caps/nvidia-cap" + ciMinor);
        assertThat(giMinor).isEqualTo(3 + 3 * 135 + 3 * 9);
    }

    /**
     * NVIDIA's own plugin (v0.17.4, nvidia-container-toolkit v1.17) on the same simulated h100-mig node: every MIG
     * device it wrote has the same name and device nodes here, the spec-level nodes and libraries are the same
     * set. Version differences kept: v1.17 still listed the MIG-enabled GPU itself (v1.20 no longer does, nor
     * does kgpu), mounted with {@code bind} rather than {@code rbind, rprivate}, and had fewer hooks.
     */
    @Test
    void agreesWithTheSpecNvidiasPluginWroteOnTheSameSimulatedNode() {
        CdiTestNodes.Node node = CdiTestNodes.simulated("h100-mig", root);
        CdiSpec nvidias = CdiJson.parse(CdiTestNodes.resource("nvidia-device-plugin/v0.17.4-h100-mig-cdi-cri.json")
                .replace("/tmp/kgpu-nvidia-agents", root.toString()), "v0.17.4-h100-mig-cdi-cri.json");

        CdiSpec ours = NvidiaCdiGenerator.generate(CdiTestNodes.options(root, NameStrategy.UUID), node.driverVersion(), node.gpus());

        assertThat(ours.kind()).isEqualTo(nvidias.kind());
        assertThat(ours.cdiVersion()).isEqualTo(nvidias.cdiVersion());
        List<CdiSpec.Device> nvidiaMigs = nvidias.devices().stream().filter(d -> d.name().startsWith("MIG-")).toList();
        assertThat(nvidiaMigs).hasSize(5);
        assertThat(ours.devices()).extracting(CdiSpec.Device::name)
                .containsExactlyInAnyOrderElementsOf(nvidiaMigs.stream().map(CdiSpec.Device::name).toList());
        for (CdiSpec.Device theirs : nvidiaMigs) {
            assertThat(ours.device(theirs.name()).orElseThrow().containerEdits().deviceNodes())
                    .as(theirs.name()).isEqualTo(theirs.containerEdits().deviceNodes());
        }
        assertThat(ours.containerEdits().deviceNodes())
                .containsExactlyInAnyOrderElementsOf(nvidias.containerEdits().deviceNodes());
        assertThat(ours.containerEdits().mounts()).extracting(CdiSpec.Mount::hostPath)
                .containsExactlyInAnyOrderElementsOf(nvidias.containerEdits().mounts().stream().map(CdiSpec.Mount::hostPath).toList());
        assertThat(ours.containerEdits().hooks()).extracting(h -> h.args().get(2))
                .contains("create-symlinks", "update-ldcache");
    }

    @Test
    void aDriverRootWithoutTheDriverIsOneLineNamingIt() {
        assertThatThrownBy(() -> NvidiaCdiGenerator.generate(CdiTestNodes.options(root, NameStrategy.UUID), "550.54.15",
                List.of(new NvidiaCdiGenerator.Gpu(0, "GPU-x", 0, "0000:01:00.0", false, List.of()))))
                .isInstanceOf(CdiException.class)
                .hasMessageStartingWith("the driver root was '" + root + "' but it holds neither libcuda.so.550.54.15"
                        + " nor libnvidia-ml.so.550.54.15");
    }

    @Test
    void aMigDeviceMissingFromMigMinorsFailsNamingTheCapability() throws IOException {
        CdiTestNodes.Node node = CdiTestNodes.simulated("h100-mig", root);
        Files.writeString(root.resolve("proc/driver/nvidia-caps/mig-minors"), "config 1\nmonitor 2\n");

        assertThatThrownBy(() -> NvidiaCdiGenerator.generate(CdiTestNodes.options(root, NameStrategy.UUID),
                node.driverVersion(), node.gpus()))
                .isInstanceOf(CdiException.class)
                .hasMessageContaining("has no capability gpu0/gi2/access in " + root.resolve("proc/driver/nvidia-caps/mig-minors"));
    }

    @Test
    void theHookPathsBasenameSelectsTheArgumentsAndHooksCanBeDisabled() {
        CdiTestNodes.Node node = CdiTestNodes.simulated("rtx3060", root);
        NvidiaCdiGenerator.Options options = CdiTestNodes.options(root, NameStrategy.INDEX)
                .withHookPath("/usr/local/nvidia/toolkit/nvidia-cdi-hook")
                .withDisabledHooks(Set.of("enable-cuda-compat", "update-application-profile"));

        CdiSpec spec = NvidiaCdiGenerator.generate(options, node.driverVersion(), node.gpus());

        assertThat(spec.containerEdits().hooks()).extracting(h -> h.args().subList(0, 2)).containsExactly(
                List.of("nvidia-cdi-hook", "create-symlinks"), List.of("nvidia-cdi-hook", "update-ldcache"),
                List.of("nvidia-cdi-hook", "disable-device-node-modification"));
        assertThat(spec.devices()).extracting(CdiSpec.Device::name).containsExactly("0");
        assertThatThrownBy(() -> options.withDisabledHooks(Set.of("chmod")))
                .hasMessage("disabledHooks was 'chmod' but it must be 'all' or one of " + NvidiaCdiGenerator.HOOKS);
    }

    @Test
    void aContainerDriverRootIsRewrittenToTheHostsInEveryHostPath() {
        CdiTestNodes.Node node = CdiTestNodes.simulated("rtx3060", root);
        NvidiaCdiGenerator.Options options = NvidiaCdiGenerator.Options.devicePlugin(root, Path.of("/run/nvidia/driver"),
                NameStrategy.UUID).withSystemRoots(root, root);

        CdiSpec spec = NvidiaCdiGenerator.generate(options, node.driverVersion(), node.gpus());

        assertThat(spec.devices().getFirst().containerEdits().deviceNodes().getFirst().hostPath())
                .contains("/run/nvidia/driver/dev/nvidia0");
        assertThat(spec.containerEdits().mounts()).allSatisfy(m ->
                assertThat(m.hostPath()).isEqualTo("/run/nvidia/driver" + m.containerPath()));
        assertThat(CdiJson.write(spec)).doesNotContain(root.toString());
    }

    @Test
    void theDriverVersionIsInferredFromTheLibrariesWhenNvmlDoesNotSayIt() throws IOException {
        assertThat(NvidiaCdiGenerator.inferDriverVersion(root)).isEmpty();
        CdiTestNodes.simulated("rtx3060", root);

        assertThat(NvidiaCdiGenerator.inferDriverVersion(root)).contains("550.54.15");
        Files.delete(root.resolve("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"));
        assertThat(NvidiaCdiGenerator.inferDriverVersion(root)).as("from libnvidia-ml.so.<version>").contains("550.54.15");
    }
}
