package dev.kgpu.validator.adapters;

import dev.kgpu.validator.core.DriverSnapshot;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.ToolkitValidator;
import dev.kgpu.validator.core.ValidationFailure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        return new ToolkitValidator(() -> twoGpus, new FileSystemDeviceNodes(root),
                cdi.map(CdiSpecDirectory::new), simulated);
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
                .isInstanceOfSatisfying(ValidationFailure.class, e -> {
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
                .isInstanceOfSatisfying(ValidationFailure.class, e -> assertThat(e.reason())
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
                """);

        assertThatThrownBy(() -> validator(true, Optional.of(cdi)).validate())
                .isInstanceOfSatisfying(ValidationFailure.class, e -> assertThat(e.reason())
                        .isEqualTo("the CDI specs " + cdi.resolve("nvidia.yaml") + " name no device for GPU 1 (GPU-bbbb);"
                                + " regenerate them with nvidia-ctk cdi generate after a driver or GPU change"));

        Files.writeString(cdi.resolve("more.json"),
                "{\"cdiVersion\":\"0.5.0\",\"kind\":\"nvidia.com/gpu\",\"devices\":[{\"name\":\"GPU-bbbb\"}]}");
        assertThat(validator(true, Optional.of(cdi)).validate().summary()).endsWith("names all 2 GPUs");
    }

    @Test
    void cdiProblemsNameTheFile() throws Exception {
        devices("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia3");
        Path cdi = Files.createDirectories(root.resolve("cdi"));

        assertThatThrownBy(() -> validator(true, Optional.of(cdi)).validate())
                .hasMessageStartingWith("no CDI spec in " + cdi + " has kind nvidia.com/gpu");
        Files.writeString(cdi.resolve("broken.yaml"), "kind: [unclosed");
        assertThatThrownBy(() -> validator(true, Optional.of(cdi)).validate())
                .hasMessageStartingWith("CDI spec " + cdi.resolve("broken.yaml") + " is not valid YAML");
        assertThatThrownBy(() -> validator(true, Optional.of(root.resolve("absent"))).validate())
                .hasMessageStartingWith("CDI spec directory " + root.resolve("absent") + " does not exist");
    }
}
