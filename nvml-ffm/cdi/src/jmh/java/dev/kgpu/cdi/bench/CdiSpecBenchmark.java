package dev.kgpu.cdi.bench;

import dev.kgpu.cdi.CdiJson;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MigMode;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.SimulatedDriverRoot;
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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the device plugin pays for its CDI spec at each (re)start or device change: {@code generate} looks the driver
 * up under a simulated driver root (libraries, firmware, binaries, device nodes) and builds the spec of every GPU;
 * {@code generateAndWrite} also serialises it and replaces the spec file atomically. 8 GPUs ({@code dgx-a100}) and
 * 256 ({@code large-256}). Run with {@code ./mvnw -pl nvml-ffm/cdi -am -Pbench verify -Djmh.nvml.skip=true}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx128m"})
public class CdiSpecBenchmark {

    @Param({"dgx-a100", "large-256"})
    public String profile;

    private Path root;
    private NvidiaCdiGenerator.Options options;
    private String driverVersion;
    private List<NvidiaCdiGenerator.Gpu> gpus;
    private CdiSpecWriter writer;

    @Setup(Level.Trial)
    public void layOut() throws IOException {
        MockNvml mock = MockNvml.load();
        mock.useProfile(profile);
        root = Files.createTempDirectory("kgpu-cdi-bench");
        try (Nvml nvml = Nvml.open()) {
            driverVersion = nvml.driverVersion();
            SimulatedDriverRoot.write(root, driverVersion, SimulatedDriverRoot.gpusOf(nvml), Optional.of(nvml.libraryPath()));
            gpus = new ArrayList<>();
            for (GpuDevice gpu : nvml.devices()) {
                gpus.add(new NvidiaCdiGenerator.Gpu(gpu.index(), gpu.uuid(), gpu.minorNumber(), gpu.pci().sysfsBusId(),
                        gpu.migMode().map(MigMode::currentEnabled).orElse(false), List.of()));
            }
        }
        options = NvidiaCdiGenerator.Options.devicePlugin(root, root, NvidiaCdiGenerator.NameStrategy.UUID)
                .withSystemRoots(root, root);
        writer = new CdiSpecWriter(root.resolve("cdi"));
        int devices = NvidiaCdiGenerator.generate(options, driverVersion, gpus).devices().size();
        if (devices != gpus.size()) {
            throw new IllegalStateException(profile + ": " + devices + " CDI devices for " + gpus.size() + " GPUs");
        }
    }

    @TearDown(Level.Trial)
    public void remove() throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    public CdiSpec generate() {
        return NvidiaCdiGenerator.generate(options, driverVersion, gpus);
    }

    @Benchmark
    public Path generateAndWrite() {
        return writer.write(NvidiaCdiGenerator.generate(options, driverVersion, gpus));
    }

    @Benchmark
    public String serialise() {
        return CdiJson.write(NvidiaCdiGenerator.generate(options, driverVersion, gpus));
    }
}
