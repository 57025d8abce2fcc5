package dev.kgpu.nvml;

import dev.kgpu.nvml.mock.MockProfile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TopologyTest {

    @AfterEach
    void resetMock() {
        MockNode.MOCK.reset();
    }

    @Test
    void dgxA100CommonAncestorsFollowItsPcieTree() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            List<GpuDevice> gpus = nvml.devices();
            assertThat(gpus.get(0).commonAncestor(gpus.get(1))).isEqualTo(TopologyLevel.SINGLE);
            assertThat(gpus.get(2).commonAncestor(gpus.get(3))).isEqualTo(TopologyLevel.MULTIPLE);
            assertThat(gpus.get(0).commonAncestor(gpus.get(2))).isEqualTo(TopologyLevel.HOSTBRIDGE);
            assertThat(gpus.get(4).commonAncestor(gpus.get(6))).isEqualTo(TopologyLevel.NODE);
            assertThat(gpus.get(0).commonAncestor(gpus.get(4))).isEqualTo(TopologyLevel.SYSTEM);
            assertThat(gpus.get(4).commonAncestor(gpus.get(0))).isEqualTo(TopologyLevel.SYSTEM);
            assertThat(gpus.get(5).commonAncestor(gpus.get(5))).isEqualTo(TopologyLevel.INTERNAL);
        }
    }

    @Test
    void everyDgxA100PairTalksOverNvlinkThroughTheSwitches() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            List<GpuDevice> gpus = nvml.devices();
            for (GpuDevice a : gpus) {
                for (GpuDevice b : gpus) {
                    assertThat(a.p2pStatus(b, P2pCapability.NVLINK)).as("%s -> %s", a, b).isEqualTo(P2pStatus.OK);
                }
            }
        }
    }

    @Test
    void nvlinksEndAtTheProfilesSwitches() {
        MockProfile profile = MockNode.profile("dgx-a100");
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            for (GpuDevice gpu : nvml.devices()) {
                List<?> expected = (List<?>) MockProfile.value(profile.gpu(gpu.index()), "nvlink.links").orElseThrow();
                List<NvLink> links = gpu.nvLinks();

                assertThat(links).hasSize(expected.size());
                for (int i = 0; i < links.size(); i++) {
                    assertThat(links.get(i)).isEqualTo(new NvLink(i, expected.get(i) != null,
                            Optional.ofNullable((String) expected.get(i))));
                }
                assertThat(gpu.nvLinkErrorTotals()).contains(new NvLinkErrorTotals(0, 0, 0, 0));
            }
        }
    }

    @Test
    void directLinksOfMigMixedEndAtTheOtherGpus() {
        try (Nvml nvml = MockNode.open("mig-mixed")) {
            List<GpuDevice> gpus = nvml.devices();
            List<String> remotes = gpus.getFirst().nvLinks().stream().map(link -> link.remoteBusId().orElseThrow()).toList();

            assertThat(remotes).containsOnly(gpus.get(1).pci().busId(), gpus.get(2).pci().busId(), gpus.get(3).pci().busId());
            assertThat(gpus.get(0).p2pStatus(gpus.get(3), P2pCapability.NVLINK)).isEqualTo(P2pStatus.OK);
        }
    }

    @Test
    void aPcieBoardHasNoNvlink() {
        try (Nvml nvml = MockNode.open("rtx3060")) {
            GpuDevice gpu = nvml.device(0);

            assertThat(gpu.nvLinks()).isEmpty();
            assertThat(gpu.nvLinkErrorTotals()).isEmpty();
            assertThat(gpu.telemetry().nvLinkDataKiB()).isEmpty();
            assertThat(gpu.commonAncestor(gpu)).isEqualTo(TopologyLevel.INTERNAL);
        }
    }

    @Test
    void devicesOfAnotherSessionAreRejected() {
        try (Nvml first = MockNode.open("dgx-a100"); Nvml second = Nvml.open()) {
            GpuDevice foreign = second.device(1);

            assertThatIllegalArgumentException().isThrownBy(() -> first.device(0).commonAncestor(foreign))
                    .withMessageContaining("other was 'GPU 1 ").withMessageEndingWith("but it must be a GpuDevice handed out by this Nvml instance");
        }
    }

    @Test
    void dgxH100PairsFollowItsTree() {
        Map<String, TopologyLevel> expected = Map.of("0-1", TopologyLevel.MULTIPLE, "0-2", TopologyLevel.NODE,
                "0-4", TopologyLevel.SYSTEM);
        try (Nvml nvml = MockNode.open("dgx-h100")) {
            expected.forEach((pair, level) -> {
                String[] ends = pair.split("-");
                assertThat(nvml.device(Integer.parseInt(ends[0])).commonAncestor(nvml.device(Integer.parseInt(ends[1]))))
                        .as(pair).isEqualTo(level);
            });
            assertThat(nvml.device(0).nvLinks()).hasSize(18).allMatch(NvLink::active);
        }
    }
}
