package dev.kgpu.gpucheck.node;

import dev.kgpu.nvml.EccCounterType;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MemoryErrorType;
import dev.kgpu.nvml.Nvml;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * nvml-ffm's per-call cost on this machine's NVML: each call in a loop on GPU 0, a short warm-up, then timed
 * for a fixed time (or a maximum number of calls). A timed loop, not JMH: no fork, no statistics beyond the
 * mean; enough to compare a real driver with the mock (docs/benchmarks.md has the JMH figures on the mock).
 */
public final class CallCostLoop {

    private static final long MAX_CALLS = 1_000_000;

    private CallCostLoop() {
    }

    /** The calls timed, in report order. */
    static Map<String, Runnable> calls(Nvml nvml, GpuDevice gpu) {
        Map<String, Runnable> calls = new LinkedHashMap<>();
        calls.put("Nvml.driverVersion() (nvmlSystemGetDriverVersion)", nvml::driverVersion);
        calls.put("GpuDevice.memory() (nvmlDeviceGetMemoryInfo_v2)", gpu::memory);
        calls.put("GpuDevice.migMode() (nvmlDeviceGetMigMode)", gpu::migMode);
        calls.put("GpuDevice.eccErrors() (nvmlDeviceGetTotalEccErrors)",
                () -> gpu.eccErrors(MemoryErrorType.UNCORRECTED, EccCounterType.VOLATILE));
        calls.put("GpuDevice.telemetry() (one exporter read: temperature, power, energy, clocks, utilisation, memory, ...)",
                gpu::telemetry);
        return calls;
    }

    /** Times every call for {@code each}, after a warm-up of a fifth of it. */
    public static List<CallCost> run(Nvml nvml, Duration each) {
        GpuDevice gpu = nvml.device(0);
        List<CallCost> costs = new ArrayList<>();
        calls(nvml, gpu).forEach((name, call) -> {
            loop(call, each.dividedBy(5));
            long start = System.nanoTime();
            long calls = loop(call, each);
            long elapsed = System.nanoTime() - start;
            costs.add(new CallCost(name, calls, (double) elapsed / calls));
        });
        return costs;
    }

    private static long loop(Runnable call, Duration time) {
        long end = System.nanoTime() + time.toNanos();
        long calls = 0;
        do {
            call.run();
            calls++;
        } while (calls < MAX_CALLS && System.nanoTime() - end < 0);
        return calls;
    }
}
