package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.GpuTelemetry;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.internal.bindings.NvmlNative;
import dev.kgpu.nvml.mock.MockNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** What only the implementation can see: NVML's own init count, and native allocations per read. */
class NvmlSessionTest {

    private static final MockNvml MOCK = MockNvml.load();

    @AfterEach
    void resetMock() {
        MOCK.reset();
    }

    @Test
    void theLastCloseShutsNvmlDown() {
        MOCK.useProfile("dgx-a100");
        Nvml first = Nvml.open();
        Nvml second = Nvml.open();

        first.close();
        assertThat(rawDeviceCount()).as("one session still holds NVML").isEqualTo(NvmlReturns.SUCCESS);
        second.close();
        assertThat(rawDeviceCount()).as("no session holds NVML").isEqualTo(NvmlReturns.UNINITIALIZED);
    }

    private static int rawDeviceCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            return NvmlNative.nvmlDeviceGetCount_v2(count);
        }
    }

    @Test
    void readingTelemetryAllocatesNoNativeMemory() {
        MOCK.useProfile("dgx-h100");
        try (Nvml nvml = Nvml.open()) {
            List<GpuDevice> gpus = nvml.devices();
            long before = ScratchPool.shared().overflowAllocations();

            for (int round = 0; round < 200; round++) {
                for (GpuDevice gpu : gpus) {
                    gpu.telemetry();
                    gpu.memory();
                }
            }

            assertThat(ScratchPool.shared().overflowAllocations()).isEqualTo(before);
        }
    }

    @Test
    void manyThreadsReadTheSameGpusAtOnce() throws Exception {
        MOCK.useProfile("large-256");
        MOCK.freezeTelemetry();
        try (Nvml nvml = Nvml.open()) {
            List<GpuDevice> gpus = nvml.devices();
            List<GpuTelemetry> reference = gpus.stream().map(GpuDevice::telemetry).toList();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<Integer>> results = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    results.add(pool.submit(() -> {
                        int checked = 0;
                        for (int round = 0; round < 5; round++) {
                            for (GpuDevice gpu : gpus) {
                                GpuTelemetry telemetry = gpu.telemetry();
                                GpuTelemetry expected = reference.get(gpu.index());
                                assertThat(telemetry.gpuTemperatureCelsius()).isEqualTo(expected.gpuTemperatureCelsius());
                                assertThat(telemetry.memory()).isEqualTo(expected.memory());
                                assertThat(telemetry.powerMilliwatts()).isEqualTo(expected.powerMilliwatts());
                                checked++;
                            }
                        }
                        return checked;
                    }));
                }
                for (Future<Integer> result : results) {
                    assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(5 * 256);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
