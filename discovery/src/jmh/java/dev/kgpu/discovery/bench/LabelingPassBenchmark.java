package dev.kgpu.discovery.bench;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.discovery.labels.GpuFeatureLabels;
import dev.kgpu.discovery.labels.LabelInput;
import dev.kgpu.discovery.labels.LabelSettings;
import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.labels.NodeSnapshot;
import dev.kgpu.discovery.node.NodeSnapshotReader;
import dev.kgpu.discovery.node.SysfsPci;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * One labelling pass without the API round trip: the NVML snapshot through FFM against the mock
 * ({@code pass}), and the label computation alone on a snapshot taken once ({@code labelsOnly}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LabelingPassBenchmark {

    @Param({"dgx-a100", "dgx-h100", "mig-mixed", "large-256"})
    public String profile;

    private MockNvml mock;
    private Nvml nvml;
    private NodeSnapshotReader reader;
    private NodeSnapshot snapshot;
    private LabelSettings settings;

    @Setup(Level.Trial)
    public void open() {
        mock = MockNvml.load();
        mock.useProfile(profile);
        nvml = Nvml.open();
        reader = new NodeSnapshotReader(new SysfsPci(Path.of("/sys")));
        settings = new LabelSettings(MigStrategy.MIXED, false, LabelSettings.Sharing.NONE);
        snapshot = reader.read(nvml, "DGX");
    }

    @TearDown(Level.Trial)
    public void close() {
        nvml.close();
        mock.reset();
    }

    @Benchmark
    public Labels pass() {
        NodeSnapshot node = reader.read(nvml, "DGX");
        return GpuFeatureLabels.all().labels(new LabelInput(node, settings, Instant.ofEpochSecond(1_700_000_000L)));
    }

    @Benchmark
    public Labels labelsOnly() {
        return GpuFeatureLabels.all().labels(new LabelInput(snapshot, settings, Instant.ofEpochSecond(1_700_000_000L)));
    }
}
