package dev.kgpu.plugin.mps;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** mount-shm's size (half of MemTotal, in its unit, as NVIDIA's) and its check for an earlier mount. */
class MountShmTest {

    @Test
    void theSizeIsHalfOfMemTotalInItsUnitOrNvidiasFallback() {
        assertThat(MountShm.size("MemTotal:       131624690 kB\nMemFree:        1234 kB\n")).isEqualTo("65812345k");
        assertThat(MountShm.size("MemFree: 1 kB\n")).isEqualTo(MountShm.FALLBACK_SIZE);
    }

    @Test
    void aMountPointIsFoundInMountinfoWithTheKernelsEscapes() {
        String mountinfo = """
                22 1 0:21 / / rw,relatime - overlay overlay rw
                35 22 0:44 / /run/nvidia/mps/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65812345k
                36 22 0:45 / /tmp/with\\040space rw - tmpfs tmpfs rw
                """;
        assertThat(MountShm.mounted(Path.of("/run/nvidia/mps/shm"), mountinfo)).isTrue();
        assertThat(MountShm.mounted(Path.of("/tmp/with space"), mountinfo)).isTrue();
        assertThat(MountShm.mounted(Path.of("/run/nvidia/mps"), mountinfo)).isFalse();
    }

    /**
     * A native plugin links mount and umount2 only if native-image registered their shapes: the plugin's
     * reachability metadata names exactly the shapes MountShm links with errno captured (strerror's is nvml's).
     */
    @Test
    void nativeImageRegistersExactlyTheDowncallShapesMountShmLinks() throws IOException {
        JsonNode metadata;
        try (InputStream in = MountShm.class.getResourceAsStream(
                "/META-INF/native-image/dev.kgpu/plugin/reachability-metadata.json")) {
            assertThat(in).as("the plugin's reachability-metadata.json").isNotNull();
            metadata = new ObjectMapper().readTree(in);
        }
        List<String> registered = new ArrayList<>();
        for (JsonNode downcall : metadata.path("foreign").path("downcalls")) {
            List<String> parameters = new ArrayList<>();
            downcall.path("parameterTypes").forEach(p -> parameters.add(p.asText()));
            registered.add(downcall.path("returnType").asText() + parameters + " errno="
                    + downcall.path("options").path("captureCallState").asBoolean(false));
        }
        assertThat(registered).containsExactlyInAnyOrder(
                shape(MountShm.MOUNT_SHAPE) + " errno=true", shape(MountShm.UMOUNT2_SHAPE) + " errno=true");
    }

    private static String shape(FunctionDescriptor descriptor) {
        Map<MemoryLayout, String> names = Map.of(ValueLayout.JAVA_INT, "int", ValueLayout.JAVA_LONG, "long long",
                ValueLayout.ADDRESS, "void*");
        List<String> parameters = descriptor.argumentLayouts().stream().map(l -> names.get(l.withoutName())).toList();
        return names.get(descriptor.returnLayout().orElseThrow().withoutName()) + parameters;
    }
}
