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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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

    /**
     * The health monitor's thread is still inside this session's work when the session closes (here: held in its
     * listener past the close's join): nvmlShutdown must wait for that thread's last NVML calls
     * ({@code nvmlEventSetWait_v2}, {@code nvmlEventSetFree}) instead of racing them, and run once it has ended.
     */
    @Test
    void aHealthThreadStillInNvmlPutsTheShutdownOffUntilItEnds() throws Exception {
        MOCK.useProfile("dgx-a100");
        Nvml nvml = Nvml.open();
        GpuDevice gpu = nvml.device(0);
        CountDownLatch delivering = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> healthThread = new AtomicReference<>();
        nvml.startHealthMonitor(List.of(gpu), event -> {
            healthThread.set(Thread.currentThread());
            delivering.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        MOCK.injectXid(gpu.uuid(), 79);
        assertThat(delivering.await(15, TimeUnit.SECONDS)).as("the XID reached the listener").isTrue();

        nvml.close(); // the monitor's close gives up waiting for its thread, held in the listener

        assertThat(rawDeviceCount()).as("the monitor's thread still calls NVML").isEqualTo(NvmlReturns.SUCCESS);
        release.countDown();
        healthThread.get().join(TimeUnit.SECONDS.toMillis(15));
        assertThat(healthThread.get().isAlive()).isFalse();
        assertThat(rawDeviceCount()).as("shut down once the thread ended").isEqualTo(NvmlReturns.UNINITIALIZED);
    }
}
