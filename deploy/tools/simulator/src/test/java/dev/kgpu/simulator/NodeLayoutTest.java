package dev.kgpu.simulator;

import dev.kgpu.sim.runtime.SimulatedGpus;
import dev.kgpu.simulator.agents.SimulatorException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeLayoutTest {

    private static final SimulatedGpus NODE = SimulatedGpus.of("550.54.15", List.of(
            new SimulatedGpus.Gpu(0, "GPU-a", "NVIDIA GeForce RTX 3060", 0, "0000:01:00.0", true, false, List.of()),
            new SimulatedGpus.Gpu(1, "GPU-b", "NVIDIA A100-SXM4-80GB", 4, "0000:07:00.0", false, false, List.of())));

    @TempDir
    Path dir;

    @Test
    void laysOutDeviceNodesSysfsAndTheNodesFiles() throws IOException {
        NodeLayout layout = NodeLayout.create(dir.resolve("node"), NODE, "kgpu-simulated-test");

        assertThat(layout.devRoot().resolve("dev")).isDirectoryContaining("glob:**/nvidiactl")
                .isDirectoryContaining("glob:**/nvidia-uvm").isDirectoryContaining("glob:**/nvidia-uvm-tools")
                .isDirectoryContaining("glob:**/nvidia0").isDirectoryContaining("glob:**/nvidia4");
        assertThat(layout.sysfs().resolve("bus/pci/devices/0000:01:00.0/class")).hasContent("0x030000\n");
        assertThat(layout.sysfs().resolve("bus/pci/devices/0000:07:00.0/class")).hasContent("0x030200\n");
        assertThat(layout.sysfs().resolve("bus/pci/devices/0000:07:00.0/vendor")).hasContent("0x10de\n");
        assertThat(Files.size(layout.sysfs().resolve("bus/pci/devices/0000:07:00.0/config"))).isEqualTo(256);
        assertThat(layout.machineTypeFile()).hasContent("kgpu-simulated-test\n");
        assertThat(layout.eventsFile()).isEmptyFile();
        assertThat(layout.devicePlugins()).isEmptyDirectory();
        assertThat(layout.validations()).isEmptyDirectory();
    }

    @Test
    void aSimulatedNodesDirectoryIsWipedOthersAreNot() throws IOException {
        NodeLayout first = NodeLayout.create(dir.resolve("node"), NODE, "m");
        Files.writeString(first.logs().resolve("plugin.log"), "old");

        NodeLayout second = NodeLayout.create(dir.resolve("node"), NODE, "m");
        assertThat(second.logs()).isEmptyDirectory();

        Path foreign = Files.createDirectories(dir.resolve("home"));
        Files.writeString(foreign.resolve("notes.txt"), "mine");
        assertThatThrownBy(() -> NodeLayout.create(foreign, NODE, "m"))
                .isInstanceOf(SimulatorException.SetupFailed.class)
                .hasMessageContaining("holds files that no simulated node made");
        assertThat(foreign.resolve("notes.txt")).hasContent("mine");
    }

    @Test
    void aNodeThatIsStillRunningThereIsNotWiped() throws IOException {
        NodeLayout running = NodeLayout.create(dir.resolve("node"), NODE, "m");
        try (ServerSocketChannel kubelet = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            kubelet.bind(UnixDomainSocketAddress.of(running.kubeletSocket()));

            assertThatThrownBy(() -> NodeLayout.create(dir.resolve("node"), NODE, "m"))
                    .isInstanceOf(SimulatorException.SetupFailed.class)
                    .hasMessageContaining("another simulated node is running there");
        }
    }

    @Test
    void aWorkDirectoryTooDeepForUnixSocketsIsRefused() {
        Path deep = dir.resolve("a".repeat(60)).resolve("b".repeat(60));

        assertThatThrownBy(() -> NodeLayout.create(deep, NODE, "m"))
                .isInstanceOf(SimulatorException.SetupFailed.class)
                .hasMessageContaining("too deep for the kubelet's Unix sockets")
                .hasMessageContaining("--work-dir=/tmp/kgpu-sim");
        assertThat(deep).doesNotExist();
    }
}
