package dev.kgpu.plugin.it;

import dev.kgpu.plugin.node.NodeStatus.Problem;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import dev.kgpu.sim.kubelet.ResourceState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The plugin's lifecycle on the mock NVML: kubelet restarts, deleted sockets, SIGHUP reloads, SIGTERM. */
class LifecycleIT {

    static final String GPU = "nvidia.com/gpu";

    @TempDir
    Path dir;

    static boolean reloadRejected(MockNvmlPlugin plugin, String reason) {
        return plugin.node.status().problems().stream()
                .anyMatch(p -> p instanceof Problem.ReloadRejected rejected && rejected.reason().contains(reason));
    }

    @Test
    void aKubeletRestartIsFollowedByANewRegistrationWithTheSameHealth() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("dgx-a100").start()) {
            plugin.await(GPU, r -> r.allocatable() == 8);
            plugin.mock.injectXid(plugin.gpuUuid(3), 79);
            plugin.await(GPU, r -> r.allocatable() == 7);

            plugin.kubelet.restart();

            ResourceState state = plugin.await(GPU, r -> r.registrations() == 2 && r.capacity() == 8);
            assertThat(state.unhealthyIds()).as("health survives the kubelet").containsExactly(plugin.gpuUuid(3));
            assertThat(plugin.kubelet.registrations()).hasSize(2).allMatch(e -> e.accepted());
        }
    }

    @Test
    void aDeletedPluginSocketIsServedAndRegisteredAgain() throws Exception {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).start()) {
            plugin.await(GPU, r -> r.allocatable() == 1);

            Files.delete(dir.resolve("nvidia-gpu.sock"));

            plugin.await(GPU, r -> r.registrations() == 2 && r.allocatable() == 1);
            assertThat(dir.resolve("nvidia-gpu.sock")).exists();
        }
    }

    @Test
    void sighupReloadsAGoodConfigAndKeepsTheRunningOneOnABadOne() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).start()) {
            plugin.await(GPU, r -> r.allocatable() == 1);

            plugin.rewriteConfig("""
                    version: v1
                    sharing:
                      timeSlicing:
                        resources:
                        - name: nvidia.com/gpu
                          replicas: 4
                    """);
            plugin.supervisor.reload();
            plugin.await(GPU, r -> r.allocatable() == 4);

            plugin.rewriteConfig("""
                    version: v1
                    sharing:
                      timeSlicing:
                        resources:
                        - name: nvidia.com/gpu
                          replicas: 1
                    """);
            plugin.supervisor.reload();

            Await.until(() -> reloadRejected(plugin, "sharing.timeSlicing.resources[0].replicas was '1' but it must be at least 2"),
                    "the rejected reload");
            assertThat(plugin.kubelet.resource(GPU).orElseThrow().allocatable()).isEqualTo(4);
            assertThat(plugin.kubelet.resource(GPU).orElseThrow().registrations()).isEqualTo(2);
            assertThat(plugin.node.status().ready()).isTrue();
        }
    }

    @Test
    void aReloadToAStrategyTheNodeCannotServeKeepsTheRunningConfig() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("mig-mixed").start()) {
            plugin.await(GPU, r -> r.allocatable() == 4);

            plugin.rewriteConfig("version: v1\nflags:\n  migStrategy: single\n");
            plugin.supervisor.reload();

            Await.until(() -> reloadRejected(plugin, "migStrategy was 'single'"), "the rejected reload");
            assertThat(plugin.fatal).isEmpty();
            assertThat(plugin.kubelet.resource(GPU).orElseThrow().allocatable()).isEqualTo(4);
        }
    }

    @Test
    void sigtermRemovesTheSockets() {
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(dir).profile("mig-mixed").env("MIG_STRATEGY", "mixed").start()) {
            plugin.await("nvidia.com/mig-1g.10gb", r -> r.allocatable() == 9);
            Await.until(() -> plugin.node.status().ready(), "every resource registered");

            assertThat(plugin.supervisor.stop(MockNvmlPlugin.WAIT)).isTrue();

            try (var sockets = Files.list(dir)) {
                assertThat(sockets.map(p -> p.getFileName().toString()))
                        .as("only the kubelet's socket and checkpoint, and the config file remain")
                        .containsExactlyInAnyOrder("kubelet.sock", "kubelet_internal_checkpoint", "config.yaml");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            plugin.await("nvidia.com/mig-1g.10gb", r -> !r.connected() && r.allocatable() == 0);
        }
    }
}
