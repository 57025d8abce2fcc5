package dev.kgpu.nvml;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

class GpmTest {

    private static final double MIB = 1024.0 * 1024.0;

    @AfterEach
    void resetMock() {
        MockNode.MOCK.reset();
    }

    @Test
    void hopperMetricsAreInDcgmUnits() {
        try (Nvml nvml = MockNode.open("dgx-h100")) {
            GpuDevice gpu = nvml.device(0);
            assertThat(gpu.gpmSupported()).isTrue();
            try (GpmSampler sampler = gpu.openGpmSampler()) {
                assertThat(sampler.sample()).as("the first sample only primes the buffers").isEmpty();

                GpmMetrics metrics = sampler.sample().orElseThrow();

                assertThat(metrics.interval()).isPositive();
                assertThat(metrics.graphicsEngineActive()).isCloseTo(0.125, within(1e-9));
                assertThat(metrics.smActive()).isCloseTo(0.10, within(1e-9));
                assertThat(metrics.smOccupancy()).isCloseTo(0.0825, within(1e-9));
                assertThat(metrics.tensorActive()).isCloseTo(0.04, within(1e-9));
                assertThat(metrics.dramActive()).isCloseTo(0.06, within(1e-9));
                assertThat(metrics.fp64Active()).isCloseTo(0.0025, within(1e-9));
                assertThat(metrics.fp32Active()).isCloseTo(0.035, within(1e-9));
                assertThat(metrics.fp16Active()).isCloseTo(0.01, within(1e-9));
                assertThat(metrics.pcieTxBytesPerSecond()).isCloseTo(120 * MIB, within(1e-3));
                assertThat(metrics.pcieRxBytesPerSecond()).isCloseTo(250 * MIB, within(1e-3));
                assertThat(sampler.sample()).as("every later sample compares with the one before").isPresent();
            }
        }
    }

    @Test
    void aClosedSamplerRefusesToSample() {
        try (Nvml nvml = MockNode.open("dgx-h100")) {
            GpmSampler sampler = nvml.device(1).openGpmSampler();
            sampler.close();
            sampler.close();

            assertThatIllegalStateException().isThrownBy(sampler::sample).withMessageContaining("was closed");
        }
    }

    @Test
    void closingNvmlClosesItsSamplers() {
        Nvml nvml = MockNode.open("dgx-h100");
        GpmSampler sampler = nvml.device(0).openGpmSampler();
        sampler.sample();

        nvml.close();

        assertThatIllegalStateException().isThrownBy(sampler::sample);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rtx3060", "dgx-a100", "mig-mixed"})
    void gpusBeforeHopperHaveNoGpm(String profile) {
        try (Nvml nvml = MockNode.open(profile)) {
            GpuDevice gpu = nvml.device(0);

            assertThat(gpu.gpmSupported()).isFalse();
            assertThatExceptionOfType(NvmlException.NotSupportedHere.class).isThrownBy(gpu::openGpmSampler)
                    .satisfies(e -> assertThat(e.code()).isEqualTo(NvmlReturnCode.ERROR_NOT_SUPPORTED));
        }
    }

    @Test
    void migGpuInstancesOfAHopperAreSampledOnTheirOwn() {
        try (Nvml nvml = MockNode.open("h100-mig")) {
            List<MigDevice> devices = nvml.device(0).migDevices();
            assertThat(devices).hasSize(5);
            for (MigDevice mig : devices) {
                try (GpmSampler sampler = mig.openGpmSampler().orElseThrow()) {
                    assertThat(sampler.sample()).isEmpty();

                    GpmMetrics metrics = sampler.sample().orElseThrow();

                    assertThat(metrics.interval()).as("%s", mig).isGreaterThan(Duration.ZERO);
                    assertThat(metrics.smActive()).as("%s", mig).isBetween(0.0, 1.0);
                    assertThat(metrics.graphicsEngineActive()).as("%s", mig).isBetween(0.0, 1.0);
                    assertThat(metrics.pcieTxBytesPerSecond()).as("PCIe is not per GPU instance").isNaN();
                    assertThat(metrics.pcieRxBytesPerSecond()).isNaN();
                }
            }
        }
    }

    @Test
    void aMigDeviceOfAGpuWithoutGpmHasNoSampler() {
        try (Nvml nvml = MockNode.open("mig-mixed")) {
            assertThat(nvml.device(1).migDevices().getFirst().openGpmSampler()).isEmpty();
        }
    }
}
