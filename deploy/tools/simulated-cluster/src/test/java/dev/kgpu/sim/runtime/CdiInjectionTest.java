package dev.kgpu.sim.runtime;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.cdi.CdiSpecWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CdiInjectionTest {

    private static final String KIND = "k8s.device-plugin.nvidia.com/gpu";

    @TempDir
    Path dir;

    private static CdiSpec spec(String... devices) {
        return new CdiSpec("0.5.0", KIND, Map.of(), java.util.Arrays.stream(devices).map(d -> new CdiSpec.Device(d,
                new CdiSpec.ContainerEdits(List.of(), List.of(CdiSpec.DeviceNode.of("/dev/nvidia" + d.length(), "")),
                        List.of(), List.of()))).toList(),
                new CdiSpec.ContainerEdits(List.of("NVIDIA_VISIBLE_DEVICES=void"), List.of(), List.of(),
                        List.of(new CdiSpec.Mount("/node/usr/lib/libcuda.so.1", "/usr/lib/libcuda.so.1", List.of("ro")))));
    }

    @Test
    void namesComeFromCdiDevicesThenEveryCdiAnnotation() {
        assertThat(CdiInjection.requested(List.of(KIND + "=a"), Map.of(
                "cdi.k8s.io/nvidia-device-plugin_1", KIND + "=b," + KIND + "=a", "other/key", "x=y")))
                .containsExactly(KIND + "=a", KIND + "=b");
    }

    @Test
    void resolvesThroughTheSpecDirectoriesOrFailsAsContainerdDoes() {
        CdiInjection runtime = new CdiInjection(List.of(dir.resolve("etc/cdi"), dir.resolve("var/run/cdi")));
        new CdiSpecWriter(dir.resolve("var/run/cdi")).write(spec("GPU-1", "GPU-22"));

        CdiInjection.Injected injected = runtime.inject(List.of(KIND + "=GPU-22"));

        assertThat(injected.deviceNames(KIND)).containsExactly("GPU-22");
        assertThat(injected.edits().env()).containsExactly("NVIDIA_VISIBLE_DEVICES=void");
        assertThat(injected.edits().mounts()).extracting(CdiSpec.Mount::containerPath).containsExactly("/usr/lib/libcuda.so.1");
        assertThat(injected.edits().deviceNodes()).extracting(CdiSpec.DeviceNode::path).containsExactly("/dev/nvidia6");
        assertThatThrownBy(() -> runtime.inject(List.of(KIND + "=GPU-1", KIND + "=GPU-9")))
                .isInstanceOf(CdiException.class)
                .hasMessage("failed to create containerd container: CDI device injection failed: unresolvable CDI devices "
                        + KIND + "=GPU-9");
        assertThat(runtime.inject(List.of()).edits().isEmpty()).isTrue();
    }
}
