package dev.kgpu.nvml;

import dev.kgpu.nvml.mock.MockProfile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static dev.kgpu.nvml.mock.MockProfile.number;
import static dev.kgpu.nvml.mock.MockProfile.string;
import static org.assertj.core.api.Assertions.assertThat;

class MigDevicesTest {

    @AfterEach
    void resetMock() {
        MockNode.MOCK.reset();
    }

    @ParameterizedTest
    @ValueSource(strings = {"mig-mixed", "h100-mig"})
    void migLayoutsAreReadWithNvidiasProfileNames(String name) {
        MockProfile profile = MockNode.profile(name);
        try (Nvml nvml = MockNode.open(name)) {
            int total = 0;
            int expectedTotal = 0;
            for (GpuDevice gpu : nvml.devices()) {
                assertThat(gpu.migMode()).contains(new MigMode(true, true));
                List<?> expectedDevices = (List<?>) MockProfile.value(profile.gpu(gpu.index()), "mig.devices").orElseThrow();
                List<MigDevice> devices = gpu.migDevices();
                List<?> gpuInstances = (List<?>) MockProfile.value(profile.gpu(gpu.index()), "mig.gpuInstances").orElseThrow();

                assertThat(devices).hasSize(expectedDevices.size());
                expectedTotal += expectedDevices.size();
                for (int i = 0; i < devices.size(); i++) {
                    @SuppressWarnings("unchecked") Map<String, Object> expected = (Map<String, Object>) expectedDevices.get(i);
                    MigDevice mig = devices.get(i);
                    String expectedName = string(expected, "name");
                    assertThat(mig.parent()).isSameAs(gpu);
                    assertThat(mig.index()).isEqualTo(i);
                    assertThat(mig.uuid()).isEqualTo(string(expected, "uuid"));
                    assertThat(mig.gpuInstanceId()).isEqualTo(number(expected, "gpuInstanceId").intValue());
                    assertThat(mig.computeInstanceId()).isEqualTo(number(expected, "computeInstanceId").intValue());
                    assertThat(mig.profile().name())
                            .as("name of %s", expectedName)
                            .isEqualTo(expectedName.substring(expectedName.indexOf(" MIG ") + 5));
                    assertThat(mig.profile().gpuInstanceSlices())
                            .isEqualTo(number(expected, "attributes.gpuInstanceSliceCount").intValue());
                    assertThat(mig.profile().computeInstanceSlices())
                            .isEqualTo(number(expected, "attributes.computeInstanceSliceCount").intValue());
                    assertThat(mig.profile().memoryMiB()).isEqualTo(number(expected, "attributes.memorySizeMB").longValue());
                    assertThat(mig.profile().multiprocessorCount())
                            .isEqualTo(number(expected, "attributes.multiprocessorCount").intValue());
                    @SuppressWarnings("unchecked") Map<String, Object> instance = (Map<String, Object>) gpuInstances.stream()
                            .filter(gi -> number((Map<String, Object>) gi, "id").intValue() == mig.gpuInstanceId())
                            .findFirst().orElseThrow();
                    assertThat(mig.placement()).as("placement of %s", mig.uuid()).isEqualTo(new MigPlacement(
                            number(instance, "profileId").intValue(), number(instance, "placement.start").intValue(),
                            number(instance, "placement.size").intValue()));
                    assertThat(mig.memory().totalBytes()).isEqualTo(number(expected, "memory.totalBytes").longValue());
                    assertThat(mig.openGpmSampler().isPresent()).as("GPM on Hopper only").isEqualTo(gpu.gpmSupported());
                    mig.openGpmSampler().ifPresent(GpmSampler::close);
                }
                total += devices.size();
                assertThat(gpu.migDevices()).as("stable across reads").containsExactlyElementsOf(devices);
            }
            assertThat(total).isEqualTo(expectedTotal).isPositive();
        }
    }

    @Test
    void gpuInstanceProfilesGiveTheMediaExtensionSuffixAndComputeSlicesTheCPrefix() {
        try (Nvml nvml = MockNode.open("mig-mixed")) {
            List<String> gpu2 = nvml.device(2).migDevices().stream().map(mig -> mig.profile().name()).toList();
            List<String> gpu3 = nvml.device(3).migDevices().stream().map(mig -> mig.profile().name()).toList();

            assertThat(gpu2).containsExactly("4g.40gb", "1g.20gb", "1g.10gb+me");
            assertThat(nvml.device(2).migDevices().get(2).profile().gpuInstanceProfileId()).isEqualTo(7); // 1_SLICE_REV1
            assertThat(gpu3).containsExactly("3g.40gb", "1c.2g.20gb", "1c.2g.20gb", "2g.20gb");
        }
        try (Nvml nvml = MockNode.open("h100-mig")) {
            assertThat(nvml.device(0).migDevices().stream().map(mig -> mig.profile().name()))
                    .containsExactly("3g.40gb", "1c.2g.20gb", "1c.2g.20gb", "1g.10gb", "1g.10gb");
        }
    }

    @Test
    void migCapableGpusWithMigOffHaveNoMigDevicesAndOthersNoMigMode() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            assertThat(nvml.device(0).migMode()).contains(new MigMode(false, false));
            assertThat(nvml.device(0).migDevices()).isEmpty();
        }
        try (Nvml nvml = MockNode.open("rtx3060")) {
            assertThat(nvml.device(0).migMode()).isEmpty();
            assertThat(nvml.device(0).migDevices()).isEmpty();
        }
    }
}
