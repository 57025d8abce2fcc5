package dev.kgpu.nvml;

import dev.kgpu.nvml.mock.SimulatedDriverRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class SimulatedDriverRootTest {

    @TempDir
    Path root;

    @AfterEach
    void resetMock() {
        MockNode.MOCK.reset();
    }

    @Test
    void migMinorsAndCapabilitiesNameEachMigDeviceAsTheDriverDoes() throws IOException {
        try (Nvml nvml = MockNode.open("mig-mixed")) {
            SimulatedDriverRoot.write(root, nvml.driverVersion(), SimulatedDriverRoot.gpusOf(nvml), Optional.of(nvml.libraryPath()));
            List<String> minors = Files.readAllLines(root.resolve("proc/driver/nvidia-caps/mig-minors"));
            assertThat(minors).startsWith("config 1", "monitor 2", "gpu0/gi0/access 3", "gpu0/gi0/ci0/access 4");
            assertThat(minors).contains("gpu0/gi1/access 12", "gpu1/gi0/access 138", "gpu3/gi3/ci1/access 437");
            assertThat(minors).hasSize(2 + 4 * 15 * 9);
            for (GpuDevice gpu : nvml.devices()) {
                for (MigDevice mig : gpu.migDevices()) {
                    int gi = SimulatedDriverRoot.gpuInstanceCapMinor(gpu.minorNumber(), mig.gpuInstanceId());
                    int ci = SimulatedDriverRoot.computeInstanceCapMinor(gpu.minorNumber(), mig.gpuInstanceId(), mig.computeInstanceId());
                    assertThat(minors).contains("gpu" + gpu.minorNumber() + "/gi" + mig.gpuInstanceId() + "/access " + gi);
                    Path capability = root.resolve("proc/driver/nvidia/capabilities/gpu" + gpu.minorNumber() + "/mig/gi"
                            + mig.gpuInstanceId() + "/ci" + mig.computeInstanceId() + "/access");
                    assertThat(capability).content().startsWith("DeviceFileMinor: " + ci + "\n");
                    assertThat(root.resolve("dev/nvidia-caps/nvidia-cap" + gi)).exists();
                    assertThat(root.resolve("dev/nvidia-caps/nvidia-cap" + ci)).exists();
                }
            }
        }
    }

    @Test
    void sysfsGivesIdsClassAndNumaNodeOfEveryGpu() throws IOException {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            SimulatedDriverRoot.write(root, nvml.driverVersion(), SimulatedDriverRoot.gpusOf(nvml), Optional.empty());
            Path gpu4 = root.resolve("sys/bus/pci/devices/0000:87:00.0");
            assertThat(gpu4.resolve("vendor")).hasContent("0x10de");
            assertThat(gpu4.resolve("device")).hasContent(String.format("0x%04x", nvml.device(4).pci().deviceId()));
            assertThat(gpu4.resolve("class")).hasContent("0x030200");
            assertThat(gpu4.resolve("numa_node")).hasContent("1");
            assertThat(Files.readAllLines(gpu4.resolve("resource"))).hasSize(13).allMatch(l -> l.split(" ").length == 3);
            assertThat(Files.readSymbolicLink(gpu4.resolve("driver")).toString()).isEqualTo("../../drivers/nvidia");
            assertThat(gpu4.resolve("driver")).isDirectory();
            byte[] config = Files.readAllBytes(gpu4.resolve("config"));
            assertThat(config).hasSize(256);
            assertThat((config[0] & 0xff) | (config[1] & 0xff) << 8).isEqualTo(0x10de);
            assertThat(root.resolve("dev/nvidia-caps")).doesNotExist();
        }
    }

    @Test
    void librariesHaveTheirSonameLinksAndNvmlIsTheMock() throws IOException {
        try (Nvml nvml = MockNode.open("rtx3060")) {
            SimulatedDriverRoot.write(root, "550.54.15", SimulatedDriverRoot.gpusOf(nvml), Optional.of(nvml.libraryPath()));
            Path lib = root.resolve(SimulatedDriverRoot.LIBRARY_DIR);
            assertThat(Files.readSymbolicLink(lib.resolve("libnvidia-ml.so.1")).toString()).isEqualTo("libnvidia-ml.so.550.54.15");
            assertThat(Files.mismatch(lib.resolve("libnvidia-ml.so.1"), nvml.libraryPath())).isEqualTo(-1);
            assertThat(Files.readSymbolicLink(lib.resolve("libcuda.so.1")).toString()).isEqualTo("libcuda.so.550.54.15");
            assertThat(Files.readSymbolicLink(lib.resolve("libcuda.so")).toString()).isEqualTo("libcuda.so.1");
            assertThat(Files.readSymbolicLink(lib.resolve("vdpau/libvdpau_nvidia.so.1")).toString())
                    .isEqualTo("libvdpau_nvidia.so.550.54.15");
            assertThat(lib.resolve("libnvidia-gpucomp.so.550.54.15")).isRegularFile();
            assertThat(root.resolve("lib/firmware/nvidia/550.54.15/gsp_ga10x.bin")).isRegularFile();
            assertThat(root.resolve("usr/bin/nvidia-smi")).isExecutable();
            assertThat(root.resolve("proc/driver/nvidia/version")).content().contains("Kernel Module  550.54.15 ");
            assertThat(root.resolve("dev")).isDirectoryContaining("glob:**/nvidia0")
                    .isDirectoryContaining("glob:**/nvidiactl").isDirectoryContaining("glob:**/nvidia-modeset");
            assertThat(root.resolve("sys/bus/pci/devices/0000:01:00.0/class")).hasContent("0x030000");
        }
    }
}
