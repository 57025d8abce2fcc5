package dev.kgpu.validator.adapters;

import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.DriverSnapshot;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.ToolkitValidator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.config.v1.MigStrategy;
import java.nio.file.Files;
import java.nio.file.Path;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The toolkit check over real files (fake device nodes and CDI specs in a temp dir), with a fixed driver. */
class ToolkitFilesTest {

    @TempDir
    Path root;

    private final DriverSnapshot twoGpus = new DriverSnapshot("550.54.15", "12.4", "/lib", List.of(
            new DriverSnapshot.Gpu(0, "GPU-aaaa", "NVIDIA A100", 80L << 30, 0, List.of()),
            new DriverSnapshot.Gpu(1, "GPU-bbbb", "NVIDIA A100", 80L << 30, 3, List.of())));

    private ToolkitValidator validator(boolean simulated, Optional<Path> cdi) {
        return validator(simulated, cdi, twoGpus, MigStrategy.NONE);
    }

    private ToolkitValidator validator(boolean simulated, Optional<Path> cdi, DriverSnapshot node, MigStrategy strategy) {
        return new ToolkitValidator(() -> node, new FileSystemDeviceNodes(root), cdi.map(CdiSpecDirectory::new),
                simulated, strategy);
    }

    private void devices(String... names) throws Exception {
        Files.createDirectories(root.resolve("dev"));
        for (String name : names) {
            Files.writeString(root.resolve("dev").resolve(name), "");
        }
    }

    @Test
    void regularFilesPassOnlyOnASimulatedNode() throws Exception {
        devices("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia3");

        assertThat(validator(true, Optional.empty()).validate().summary())
                .isEqualTo("4 device nodes under " + root);
        assertThatThrownBy(() -> validator(false, Optional.empty()).validate())
                .isInstanceOfSatisfying(ComponentFailure.class, e -> {
                    assertThat(e.layer()).isEqualTo(Layer.RUNTIME);
                    assertThat(e.reason()).startsWith("dev/nvidiactl is a regular file, dev/nvidia-uvm is a regular file")
                            .contains("not a character device");
                });
    }

    @Test
    void theRealNullDeviceCountsAsACharacterDevice() {
        assertThat(new FileSystemDeviceNodes(Path.of("/")).kind("dev/null"))
                .isEqualTo(dev.kgpu.validator.core.DeviceNodes.Kind.CHARACTER_DEVICE);
    }

    @Test
    void missingNodesAreNamedByMinorNumber() throws Exception {
        devices("nvidiactl", "nvidia0");

        assertThatThrownBy(() -> validator(true, Optional.empty()).validate())
                .isInstanceOfSatisfying(ComponentFailure.class, e -> assertThat(e.reason())
                        .startsWith("device nodes dev/nvidia-uvm, dev/nvidia3 missing under " + root));
    }

    @Test
    void cdiSpecMustNameEveryGpuByIndexOrUuid() throws Exception {
        devices("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia3");
        Path cdi = Files.createDirectories(root.resolve("cdi"));
        Files.writeString(cdi.resolve("nvidia.yaml"), """
                cdiVersion: 0.5.0
                kind: nvidia.com/gpu
                devices:
                - name: "0"
                  containerEdits: {deviceNodes: [{path: /dev/nvidia0}]}
                - name: all
                  containerEdits: {deviceNodes: [{path: /dev/nvidia0}]}
                """);

        assertThatThrownBy(() -> validator(true, Optional.of(cdi)).validate())
                .isInstanceOfSatisfying(ComponentFailure.class, e -> assertThat(e.reason())
                        .isEqualTo("the CDI specs " + cdi.resolve("nvidia.yaml") + " resolve no nvidia.com/gpu device for"
                                + " GPU 1 (GPU-bbbb); regenerate them with nvidia-ctk cdi generate after a driver or GPU change"));

        Files.writeString(cdi.resolve("more.json"), "{\"cdiVersion\":\"0.5.0\",\"kind\":\"nvidia.com/gpu\","
                + "\"devices\":[{\"name\":\"GPU-bbbb\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/nvidia3\"}]}}]}");
        assertThat(validator(true, Optional.of(cdi)).validate().summary()).endsWith("names all 2 GPUs");
    }

    @Test
    void cdiProblemsNameTheFile() throws Exception {
        devices("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia3");
        Path cdi = Files.createDirectories(root.resolve("cdi"));

        assertThatThrownBy(() -> validator(true, Optional.of(cdi)).validate())
                .hasMessageStartingWith("no CDI spec in " + cdi + " has kind nvidia.com/gpu or k8s.device-plugin.nvidia.com/gpu"
                        + " (generate one with");
        Files.writeString(cdi.resolve("broken.yaml"), "kind: [unclosed");
        assertThatThrownBy(() -> validator(true, Optional.of(cdi)).validate())
                .hasMessageContaining("(specs that did not load: " + cdi.resolve("broken.yaml") + ": not a CDI spec");
        assertThatThrownBy(() -> validator(true, Optional.of(root.resolve("absent"))).validate())
                .hasMessageStartingWith("CDI spec directory " + root.resolve("absent") + " does not exist");
    }

    /**
     * The device plugin's spec, as kgpu's plugin (and NVIDIA's) writes it: under MIG strategy mixed the names it
     * hands out are the MIG devices of GPUs with MIG on, and each must resolve; a spec for the GPUs alone fails.
     */
    @Test
    void thePluginsCdiNamesMustResolveForEveryDeviceItHandsOut() throws Exception {
        devices("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia3");
        Files.createDirectories(root.resolve("usr/lib/x86_64-linux-gnu"));
        Files.writeString(root.resolve("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15"), "");
        DriverSnapshot mig = new DriverSnapshot("550.54.15", "12.4", "/lib", List.of(
                new DriverSnapshot.Gpu(0, "GPU-aaaa", "NVIDIA A100", 80L << 30, 0, List.of()),
                new DriverSnapshot.Gpu(1, "GPU-bbbb", "NVIDIA A100", 80L << 30, 3, List.of("MIG-1111", "MIG-2222"))));
        Path cdi = root.resolve("cdi");
        NvidiaCdiGenerator.Options options = NvidiaCdiGenerator.Options.devicePlugin(root, root,
                NvidiaCdiGenerator.NameStrategy.UUID).withSystemRoots(root, root);
        new CdiSpecWriter(cdi).write(NvidiaCdiGenerator.generate(options, "550.54.15", List.of(
                new NvidiaCdiGenerator.Gpu(0, "GPU-aaaa", 0, "0000:07:00.0", false, List.of()),
                new NvidiaCdiGenerator.Gpu(1, "GPU-bbbb", 3, "0000:0f:00.0", false, List.of()))));

        assertThat(validator(true, Optional.of(cdi), mig, MigStrategy.NONE).validate().summary())
                .endsWith("; CDI " + cdi.resolve("k8s.device-plugin.nvidia.com-gpu.json")
                        + " resolves all 2 devices the plugin hands out");
        assertThatThrownBy(() -> validator(true, Optional.of(cdi), mig, MigStrategy.MIXED).validate())
                .isInstanceOfSatisfying(ComponentFailure.class, e -> assertThat(e.reason()).isEqualTo("the CDI specs "
                        + cdi.resolve("k8s.device-plugin.nvidia.com-gpu.json") + " resolve no k8s.device-plugin.nvidia.com/gpu"
                        + " device for MIG device 1:0 (MIG-1111), MIG device 1:1 (MIG-2222); the device plugin rewrites its"
                        + " spec when its devices change: is it running with a CDI strategy?"));
    }
}
