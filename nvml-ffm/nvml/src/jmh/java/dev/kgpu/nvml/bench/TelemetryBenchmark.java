package dev.kgpu.nvml.bench;

import dev.kgpu.nvml.EccCounterType;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MemoryErrorType;
import dev.kgpu.nvml.MemoryInfo;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * The cost of reading NVML through kgpu's FFM layer, against the mock libnvidia-ml.so.1 with its telemetry
 * walk frozen (so the figures are kgpu's FFM path plus the mock's table look-ups, not the walk's sines).
 * {@code telemetryOf8Gpus} is one exporter collection: {@link GpuDevice#telemetry()} of every GPU of an
 * 8-GPU node (about 16 NVML calls per GPU). Run with {@code ./mvnw -pl nvml-ffm/nvml -Pbench verify}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx128m"})
public class TelemetryBenchmark {

    @Param({"dgx-a100", "dgx-h100"})
    public String profile;

    private Nvml nvml;
    private List<GpuDevice> gpus;
    private GpuDevice first;

    @Setup(Level.Trial)
    public void open() {
        MockNvml mock = MockNvml.load();
        mock.useProfile(profile);
        mock.freezeTelemetry();
        nvml = Nvml.open();
        gpus = nvml.devices();
        first = gpus.getFirst();
        if (gpus.size() != 8) {
            throw new IllegalStateException(profile + " has " + gpus.size() + " GPUs, not 8");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        nvml.close();
    }

    /** One full telemetry read of all 8 GPUs. */
    @Benchmark
    public void telemetryOf8Gpus(Blackhole blackhole) {
        for (GpuDevice gpu : gpus) {
            blackhole.consume(gpu.telemetry());
        }
    }

    /** {@code nvmlDeviceGetMemoryInfo_v2}: one NVML call and a record. */
    @Benchmark
    public MemoryInfo memory() {
        return first.memory();
    }

    /** {@code nvmlDeviceGetTotalEccErrors}: one NVML call and an OptionalLong. */
    @Benchmark
    public OptionalLong eccErrors() {
        return first.eccErrors(MemoryErrorType.UNCORRECTED, EccCounterType.VOLATILE);
    }

    /** {@code nvmlDeviceGetCount_v2}: the cheapest call, close to the bare cost of one downcall. */
    @Benchmark
    public int deviceCount() {
        return nvml.deviceCount();
    }
}
