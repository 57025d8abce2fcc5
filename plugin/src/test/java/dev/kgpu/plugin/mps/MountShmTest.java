package dev.kgpu.plugin.mps;

import dev.kgpu.agent.testing.ForeignDowncalls;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

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
        assertThat(ForeignDowncalls.registered("/META-INF/native-image/dev.kgpu/plugin/reachability-metadata.json"))
                .containsExactlyInAnyOrder(ForeignDowncalls.shape(MountShm.MOUNT_SHAPE, true),
                        ForeignDowncalls.shape(MountShm.UMOUNT2_SHAPE, true));
    }
}
