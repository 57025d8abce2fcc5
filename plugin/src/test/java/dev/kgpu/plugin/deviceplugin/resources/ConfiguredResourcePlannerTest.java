package dev.kgpu.plugin.deviceplugin.resources;

import dev.kgpu.plugin.deviceplugin.resources.ConfiguredResourcePlanner.SharingDevices;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.testing.Configs;
import dev.kgpu.plugin.testing.Devices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** NVIDIA's resource naming and sharing from real config files, on in-memory nodes. */
class ConfiguredResourcePlannerTest {

    @TempDir
    Path dir;

    final NodeInventory twoGpus = NodeInventory.withoutTopology(List.of(Devices.gpu(0), Devices.gpu(1)));
    final NodeInventory migMixed = NodeInventory.withoutTopology(List.of(
            Devices.migGpu(0, "1g.10gb", "1g.10gb"),
            Devices.migGpu(1, "3g.40gb", "1g.10gb+me", "1c.2g.20gb"),
            Devices.gpu(2)));

    final List<String> warnings = new ArrayList<>();

    List<PluginResource> plan(String yaml, NodeInventory inventory) {
        return new ConfiguredResourcePlanner(Configs.load(dir, yaml).config(), SharingDevices.IGNORED, warnings::add)
                .plan(inventory);
    }

    List<PluginResource> planHonouring(String yaml, NodeInventory inventory) {
        return new ConfiguredResourcePlanner(Configs.load(dir, yaml).config(), SharingDevices.HONOURED, warnings::add)
                .plan(inventory);
    }

    static Map<String, List<String>> ids(List<PluginResource> resources) {
        return resources.stream().collect(Collectors.toMap(PluginResource::name,
                r -> r.devices().stream().map(AdvertisedDevice::id).toList(), (a, b) -> a, java.util.LinkedHashMap::new));
    }

    @Test
    void noneAdvertisesEveryGpuWholeEvenWithMig() {
        List<PluginResource> resources = plan("version: v1\n", migMixed);

        assertThat(ids(resources)).containsExactly(Map.entry("nvidia.com/gpu",
                List.of(Devices.gpuUuid(0), Devices.gpuUuid(1), Devices.gpuUuid(2))));
        assertThat(resources.getFirst().socketName()).isEqualTo("nvidia-gpu.sock");
    }

    @Test
    void mixedAdvertisesOneResourcePerProfile() {
        Map<String, List<String>> ids = ids(plan("version: v1\nflags:\n  migStrategy: mixed\n", migMixed));

        assertThat(ids.keySet()).containsExactly("nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "nvidia.com/mig-1g.10gb.me",
                "nvidia.com/mig-2g.20gb", "nvidia.com/mig-3g.40gb");
        assertThat(ids.get("nvidia.com/gpu")).containsExactly(Devices.gpuUuid(2));
        assertThat(ids.get("nvidia.com/mig-1g.10gb")).containsExactly(Devices.migUuid(0, 0), Devices.migUuid(0, 1));
        assertThat(ids.get("nvidia.com/mig-1g.10gb.me")).containsExactly(Devices.migUuid(1, 1));
        assertThat(ids.get("nvidia.com/mig-2g.20gb")).as("a compute instance counts under its GPU instance's profile")
                .containsExactly(Devices.migUuid(1, 2));
        assertThat(warnings).isEmpty();
    }

    @Test
    void singleAdvertisesIdenticalMigDevicesAsGpus() {
        NodeInventory identical = NodeInventory.withoutTopology(List.of(
                Devices.migGpu(0, "1g.10gb", "1g.10gb"), Devices.migGpu(1, "1g.10gb")));

        assertThat(ids(plan("version: v1\nflags:\n  migStrategy: single\n", identical))).containsExactly(Map.entry(
                "nvidia.com/gpu", List.of(Devices.migUuid(0, 0), Devices.migUuid(0, 1), Devices.migUuid(1, 0))));
    }

    @Test
    void singleWithoutMigIsLikeNone() {
        assertThat(ids(plan("version: v1\nflags:\n  migStrategy: single\n", twoGpus)))
                .containsExactly(Map.entry("nvidia.com/gpu", List.of(Devices.gpuUuid(0), Devices.gpuUuid(1))));
    }

    @Test
    void singleRefusesDifferentProfiles() {
        NodeInventory different = NodeInventory.withoutTopology(List.of(
                Devices.migGpu(0, "1g.10gb"), Devices.migGpu(1, "3g.40gb")));

        assertThatThrownBy(() -> plan("version: v1\nflags:\n  migStrategy: single\n", different))
                .isInstanceOf(ResourcePlanException.class)
                .hasMessage("flags.migStrategy was 'single' but it needs all MIG devices to be identical, and this node"
                        + " has 1g.10gb (GPUs 0), 3g.40gb (GPUs 1); use migStrategy 'mixed'");
    }

    @Test
    void singleRefusesMixedMigModes() {
        assertThatThrownBy(() -> plan("version: v1\nflags:\n  migStrategy: single\n", migMixed))
                .isInstanceOf(ResourcePlanException.class)
                .hasMessage("flags.migStrategy was 'single' but it needs all devices on the node configured with the"
                        + " same migEnabled value: GPUs 0, 1 have MIG enabled and GPUs 2 do not");
    }

    @Test
    void timeSlicingReplicatesEveryGpu() {
        List<PluginResource> resources = plan("""
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 3
                """, twoGpus);

        assertThat(resources).singleElement().satisfies(r -> {
            assertThat(r.name()).isEqualTo("nvidia.com/gpu");
            assertThat(r.replication()).isEqualTo(new Replication.Shared(false, 3, false));
            assertThat(r.devices()).extracting(AdvertisedDevice::id).containsExactly(
                    Devices.gpuUuid(0) + "::0", Devices.gpuUuid(0) + "::1", Devices.gpuUuid(0) + "::2",
                    Devices.gpuUuid(1) + "::0", Devices.gpuUuid(1) + "::1", Devices.gpuUuid(1) + "::2");
        });
    }

    @Test
    void renameByDefaultAdvertisesDotShared() {
        assertThat(ids(plan("""
                version: v1
                sharing:
                  timeSlicing:
                    renameByDefault: true
                    failRequestsGreaterThanOne: true
                    resources:
                    - name: gpu
                      replicas: 2
                """, twoGpus)).keySet()).containsExactly("nvidia.com/gpu.shared");
    }

    @Test
    void devicesAndRenameAreIgnoredAsNvidiaIgnoresThem() {
        Map<String, List<String>> ids = ids(plan("""
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      rename: nvidia.com/gpu.small
                      devices: [1]
                      replicas: 2
                    - name: nvidia.com/gpu
                      devices: 1
                      replicas: 3
                """, twoGpus));

        assertThat(ids).as("every GPU shared under NVIDIA's name; entries for one resource merge, the most replicas win")
                .containsExactly(Map.entry("nvidia.com/gpu", List.of(
                        Devices.gpuUuid(0) + "::0", Devices.gpuUuid(0) + "::1", Devices.gpuUuid(1) + "::0",
                        Devices.gpuUuid(1) + "::1", Devices.gpuUuid(0) + "::2", Devices.gpuUuid(1) + "::2")));
        assertThat(warnings).containsExactly(
                "sharing.timeSlicing.resources[0].rename 'nvidia.com/gpu.small' is ignored, as NVIDIA's plugin ignores it"
                        + " (its issue #1786); the replicas are advertised as nvidia.com/gpu"
                        + " (KGPU_HONOUR_SHARING_DEVICES=true honours it)",
                "sharing.timeSlicing.resources[0].devices '[1]' is ignored, as NVIDIA's plugin ignores it (its issue"
                        + " #1786); every device of nvidia.com/gpu is shared (KGPU_HONOUR_SHARING_DEVICES=true honours it)",
                "sharing.timeSlicing.resources[1].devices '1' is ignored, as NVIDIA's plugin ignores it (its issue"
                        + " #1786); every device of nvidia.com/gpu is shared (KGPU_HONOUR_SHARING_DEVICES=true honours it)");
    }

    @Test
    void devicesSubsetSharesOnlyThoseAndKeepsTheRestWhole() {
        Map<String, List<String>> ids = ids(planHonouring("""
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      rename: nvidia.com/gpu.small
                      devices: [1]
                      replicas: 2
                """, twoGpus));

        assertThat(ids).containsExactly(
                Map.entry("nvidia.com/gpu", List.of(Devices.gpuUuid(0))),
                Map.entry("nvidia.com/gpu.small", List.of(Devices.gpuUuid(1) + "::0", Devices.gpuUuid(1) + "::1")));
    }

    @Test
    void explicitListsGiveGpusDifferentReplicaCounts() {
        Map<String, List<String>> ids = ids(planHonouring("""
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      devices: ["0"]
                      replicas: 2
                    - name: nvidia.com/gpu
                      devices: ["%s"]
                      replicas: 3
                """.formatted(Devices.gpuUuid(1)), twoGpus));

        assertThat(ids.get("nvidia.com/gpu")).containsExactly(Devices.gpuUuid(0) + "::0", Devices.gpuUuid(0) + "::1",
                Devices.gpuUuid(1) + "::0", Devices.gpuUuid(1) + "::1", Devices.gpuUuid(1) + "::2");
    }

    @Test
    void migDevicesCanBeSharedByIndex() {
        Map<String, List<String>> ids = ids(planHonouring("""
                version: v1
                flags:
                  migStrategy: mixed
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/mig-1g.10gb
                      devices: ["0:1"]
                      replicas: 2
                """, migMixed));

        assertThat(ids.get("nvidia.com/mig-1g.10gb")).containsExactly(Devices.migUuid(0, 0),
                Devices.migUuid(0, 1) + "::0", Devices.migUuid(0, 1) + "::1");
    }

    @Test
    void whatANodeLacksIsAWarningNamingItNeverAFailure() {
        // one cluster-wide ConfigMap meets a two-GPU node
        Map<String, List<String>> ids = ids(planHonouring("""
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      devices: [7, "GPU-b1028956-cfa2-0990-bf4a-5da9abb51763", 1]
                      replicas: 2
                    - name: nvidia.com/mig-1g.10gb
                      devices: 3
                      replicas: 2
                """, twoGpus));

        assertThat(ids).containsExactly(Map.entry("nvidia.com/gpu", List.of(Devices.gpuUuid(0),
                Devices.gpuUuid(1) + "::0", Devices.gpuUuid(1) + "::1")));
        assertThat(warnings).containsExactly(
                "sharing.timeSlicing.resources[0].devices names '7', which is no device of nvidia.com/gpu on this node;"
                        + " it is left out",
                "sharing.timeSlicing.resources[0].devices names 'GPU-b1028956-cfa2-0990-bf4a-5da9abb51763', which is no"
                        + " device of nvidia.com/gpu on this node; it is left out",
                "sharing.timeSlicing.resources[1].name 'nvidia.com/mig-1g.10gb' matches no device on this node; nothing"
                        + " is shared for it");
    }

    @Test
    void aCountLargerThanTheNodeSharesEveryDeviceAndOverlapsShareOnce() {
        Map<String, List<String>> ids = ids(planHonouring("""
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      devices: 3
                      replicas: 2
                    - name: nvidia.com/gpu
                      devices: [0]
                      replicas: 4
                """, twoGpus));

        assertThat(ids.get("nvidia.com/gpu")).containsExactly(Devices.gpuUuid(0) + "::0", Devices.gpuUuid(0) + "::1",
                Devices.gpuUuid(1) + "::0", Devices.gpuUuid(1) + "::1");
        assertThat(warnings).containsExactly(
                "sharing.timeSlicing.resources[0].devices is 3, more than the 2 devices of nvidia.com/gpu on this node;"
                        + " all 2 are shared",
                "sharing.timeSlicing.resources[1].devices selects " + Devices.gpuUuid(0) + ", which"
                        + " sharing.timeSlicing.resources[0] already shares; it is shared once, as that entry says");
    }

    @Test
    void mpsSharesWithItsDefaults() {
        List<PluginResource> resources = plan("""
                version: v1
                flags:
                  mpsRoot: /run/nvidia/mps
                sharing:
                  mps:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """, twoGpus);

        assertThat(resources).singleElement().satisfies(r -> {
            assertThat(r.replication()).isEqualTo(new Replication.Shared(true, 4, true));
            assertThat(r.devices()).hasSize(8);
        });
    }

    @Test
    void mpsCannotShareMigDevices() {
        NodeInventory identical = NodeInventory.withoutTopology(List.of(Devices.migGpu(0, "1g.10gb", "1g.10gb")));

        assertThatThrownBy(() -> plan("""
                version: v1
                flags:
                  migStrategy: single
                  mpsRoot: /run/nvidia/mps
                sharing:
                  mps:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 2
                """, identical)).isInstanceOf(ResourcePlanException.class)
                .hasMessage("sharing.mps.resources[0].name was 'nvidia.com/gpu' but it names MIG devices, which MPS cannot share");
    }

    @Test
    void aNodeWithoutGpusHasNoResources() {
        assertThat(plan("version: v1\n", NodeInventory.withoutTopology(List.<Gpu>of()))).isEmpty();
    }
}
