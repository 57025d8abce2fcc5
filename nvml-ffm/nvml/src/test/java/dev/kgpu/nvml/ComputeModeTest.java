package dev.kgpu.nvml;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** {@link GpuDevice#setComputeMode}: per GPU, through the real FFM path, refused where NVML refuses it. */
class ComputeModeTest {

    @AfterEach
    void resetMock() {
        MockNode.MOCK.reset();
    }

    @Test
    void theModeChangesOnTheGpuItIsSetOnAndNoOther() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            GpuDevice gpu0 = nvml.device(0);

            gpu0.setComputeMode(ComputeMode.EXCLUSIVE_PROCESS);

            assertThat(gpu0.computeMode()).contains(ComputeMode.EXCLUSIVE_PROCESS);
            assertThat(nvml.device(1).computeMode()).contains(ComputeMode.DEFAULT);
            gpu0.setComputeMode(ComputeMode.DEFAULT);
            assertThat(gpu0.computeMode()).contains(ComputeMode.DEFAULT);
        }
    }

    @Test
    void everyModeRoundTripsThroughNvmlsValue() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            GpuDevice gpu = nvml.device(3);
            for (ComputeMode mode : ComputeMode.values()) {
                gpu.setComputeMode(mode);

                assertThat(gpu.computeMode()).contains(mode);
                assertThat(ComputeMode.fromNvml(mode.toNvml())).isEqualTo(mode);
            }
            assertThat(Arrays.stream(ComputeMode.values()).mapToInt(ComputeMode::toNvml)).containsExactly(0, 1, 2, 3);
        }
    }

    @Test
    void aMigEnabledGpuStaysDefault() {
        try (Nvml nvml = MockNode.open("mig-mixed")) {
            GpuDevice gpu = nvml.device(0);
            assertThat(gpu.migMode().orElseThrow().currentEnabled()).isTrue();

            assertThatExceptionOfType(NvmlException.NotSupportedHere.class)
                    .isThrownBy(() -> gpu.setComputeMode(ComputeMode.EXCLUSIVE_PROCESS))
                    .satisfies(e -> assertThat(e.function()).isEqualTo("nvmlDeviceSetComputeMode"));
            assertThat(gpu.computeMode()).contains(ComputeMode.DEFAULT);
        }
    }

    @Test
    void aRefusalOfTheDriverIsItsTypedExceptionAndChangesNothing() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            GpuDevice gpu = nvml.device(0);
            MockNode.MOCK.failNext("nvmlDeviceSetComputeMode", NvmlReturnCode.ERROR_NO_PERMISSION, 1);

            assertThatExceptionOfType(NvmlException.NoPermission.class)
                    .isThrownBy(() -> gpu.setComputeMode(ComputeMode.EXCLUSIVE_PROCESS))
                    .withMessageStartingWith("nvmlDeviceSetComputeMode: ");
            assertThat(gpu.computeMode()).contains(ComputeMode.DEFAULT);
        }
    }

    @Test
    void aClosedSessionRefusesTheSet() {
        Nvml nvml = MockNode.open("dgx-a100");
        GpuDevice gpu = nvml.device(0);
        nvml.close();

        assertThatExceptionOfType(NvmlException.Uninitialized.class)
                .isThrownBy(() -> gpu.setComputeMode(ComputeMode.EXCLUSIVE_PROCESS))
                .satisfies(e -> assertThat(e.function()).isEqualTo("nvmlDeviceSetComputeMode"));
    }
}
