package dev.kgpu.exporter.app;

import dev.kgpu.exporter.collector.MetricsCollection;
import dev.kgpu.exporter.collector.XidHistory;
import dev.kgpu.exporter.config.GpuIdType;
import dev.kgpu.exporter.counters.CountersFile;
import dev.kgpu.exporter.exposition.ExpositionFormat;
import dev.kgpu.exporter.exposition.ExpositionRenderer;
import dev.kgpu.exporter.nvml.NodeSampleReader;
import dev.kgpu.exporter.podresources.PodResourcesClient;
import dev.kgpu.exporter.pods.PodAttributionTracker;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.sim.podresources.FakePodResourcesServer;
import dev.kgpu.sim.prometheus.ExpositionParser.Sample;
import dev.kgpu.sim.prometheus.ExpositionParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Collection cycles over the mock NVML with a fake kubelet: who holds which GPU, MIG device or replica. */
class PodAttributionPipelineTest {

    private static MockNvml mock;

    @TempDir
    Path dir;

    @BeforeAll
    static void loadMock() {
        mock = MockNvml.load();
    }

    @AfterAll
    static void resetMock() {
        mock.reset();
    }

    /** One exporter pipeline (as the Exporter bean wires it) against {@code socket}. */
    private record Pipeline(Nvml nvml, NodeSampleReader reader, PodResourcesClient client, CollectionCycle cycle,
                            List<PodAttributionTracker.Outcome> outcomes) implements AutoCloseable {

        static Pipeline open(Path socket, boolean virtualGpus) {
            Nvml nvml = Nvml.open();
            MetricsCollection collection = MetricsCollection.forCounters(CountersFile.readBuiltIn("default-counters.csv"),
                    new XidHistory(Duration.ofMinutes(10)), Duration.ofMinutes(5), Duration.ofMinutes(5), Clock.systemUTC());
            NodeSampleReader reader = new NodeSampleReader(nvml, collection.readings(), e -> {
            }, Clock.systemUTC());
            PodResourcesClient client = new PodResourcesClient(socket, Duration.ofSeconds(5));
            List<PodAttributionTracker.Outcome> outcomes = new ArrayList<>();
            PodAttributionTracker tracker = new PodAttributionTracker(client, Set.of(), GpuIdType.UID, virtualGpus,
                    Clock.systemUTC(), outcomes::add);
            return new Pipeline(nvml, reader, client, new CollectionCycle(reader, collection, Optional.of(tracker),
                    new ExpositionRenderer(Optional.empty(), false)), outcomes);
        }

        List<Sample> collect(String family) {
            String text = new String(cycle.get().body(ExpositionFormat.TEXT, false), StandardCharsets.UTF_8);
            return ExpositionParser.parse(text).get(family).samples();
        }

        @Override
        public void close() {
            client.close();
            reader.close();
            nvml.close();
        }
    }

    private static List<String> pods(List<Sample> samples, String uuid) {
        return samples.stream().filter(s -> s.label("UUID").equals(uuid))
                .map(s -> s.label("namespace") + "/" + s.label("pod") + "/" + s.label("container")
                        + (s.labels().containsKey("vgpu") ? "#" + s.label("vgpu") : "")).toList();
    }

    @Test
    void wholeGpusGetTheirHoldersPodLabelsAndSurviveAKubeletRestart() {
        mock.useProfile("dgx-a100");
        try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"));
             Pipeline pipeline = Pipeline.open(kubelet.socket(), false)) {
            List<GpuDevice> gpus = pipeline.nvml.devices();
            kubelet.assign("trainer-0", "ml", "main", "nvidia.com/gpu", List.of(gpus.get(0).uuid(), gpus.get(1).uuid()))
                    .assign("other", "ml", "main", "example.com/fpga", List.of(gpus.get(2).uuid()));

            List<Sample> temps = pipeline.collect("DCGM_FI_DEV_GPU_TEMP");
            assertThat(pods(temps, gpus.get(0).uuid())).containsExactly("ml/trainer-0/main");
            assertThat(pods(temps, gpus.get(1).uuid())).containsExactly("ml/trainer-0/main");
            assertThat(pods(temps, gpus.get(2).uuid())).containsExactly("null/null/null");
            assertThat(temps.getFirst().labelNames()).endsWith("DCGM_FI_DRIVER_VERSION", "container", "namespace", "pod");

            kubelet.stop();
            assertThat(pods(pipeline.collect("DCGM_FI_DEV_GPU_TEMP"), gpus.get(0).uuid()))
                    .as("the last mapping is kept while the kubelet is away").containsExactly("ml/trainer-0/main");

            kubelet.clear().assign("trainer-1", "ml", "main", "nvidia.com/gpu", List.of(gpus.get(0).uuid()));
            kubelet.restart();
            temps = pipeline.collect("DCGM_FI_DEV_GPU_TEMP");
            assertThat(pods(temps, gpus.get(0).uuid())).containsExactly("ml/trainer-1/main");
            assertThat(pods(temps, gpus.get(1).uuid())).containsExactly("null/null/null");
            assertThat(pipeline.outcomes).containsExactly(PodAttributionTracker.Outcome.OK,
                    PodAttributionTracker.Outcome.SOCKET_MISSING, PodAttributionTracker.Outcome.OK);
        }
    }

    @Test
    void migDevicesMapToTheirGpuInstances() {
        mock.useProfile("mig-mixed");
        try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"));
             Pipeline pipeline = Pipeline.open(kubelet.socket(), false)) {
            GpuDevice gpu = pipeline.nvml.devices().stream().filter(d -> !d.migDevices().isEmpty()).findFirst().orElseThrow();
            MigDevice mig = gpu.migDevices().getLast();
            kubelet.assign("infer", "serving", "model", "nvidia.com/mig-" + mig.profile().name(), List.of(mig.uuid()));

            List<Sample> fb = pipeline.collect("DCGM_FI_DEV_FB_USED").stream()
                    .filter(s -> s.label("UUID").equals(gpu.uuid())).toList();

            assertThat(fb).isNotEmpty().allSatisfy(s -> assertThat(s.labels()).containsKey("GPU_I_ID"));
            assertThat(fb).filteredOn(s -> s.label("GPU_I_ID").equals(Integer.toString(mig.gpuInstanceId())))
                    .singleElement().satisfies(s -> assertThat(s.label("pod")).isEqualTo("infer"));
            assertThat(fb).filteredOn(s -> !s.label("GPU_I_ID").equals(Integer.toString(mig.gpuInstanceId())))
                    .allSatisfy(s -> assertThat(s.labels()).doesNotContainKey("pod"));
        }
    }

    @Test
    void timeSlicedReplicasMapToTheirPhysicalGpuWithVgpuWhenVirtualGpusAreOn() {
        mock.useProfile("dgx-a100");
        try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"));
             Pipeline shared = Pipeline.open(kubelet.socket(), true)) {
            String uuid = shared.nvml.devices().getFirst().uuid();
            kubelet.assign("a", "ml", "main", "nvidia.com/gpu", List.of(uuid + "::0"))
                    .assign("b", "ml", "main", "nvidia.com/gpu", List.of(uuid + "::3"));

            assertThat(pods(shared.collect("DCGM_FI_DEV_GPU_TEMP"), uuid)).containsExactly("ml/a/main#0", "ml/b/main#3");
        }
    }

    @Test
    void theKubeletsRateLimitKeepsTheLastMappingAndBacksOff() {
        mock.useProfile("dgx-a100");
        try (FakePodResourcesServer kubelet = FakePodResourcesServer.start(dir.resolve("kubelet.sock"));
             Pipeline pipeline = Pipeline.open(kubelet.socket(), false)) {
            String uuid = pipeline.nvml.devices().getFirst().uuid();
            kubelet.assign("a", "ml", "main", "nvidia.com/gpu", List.of(uuid));
            assertThat(pods(pipeline.collect("DCGM_FI_DEV_GPU_TEMP"), uuid)).containsExactly("ml/a/main");

            kubelet.rateLimit(0.0001, 0); // every call rejected from now on
            kubelet.clear().assign("b", "ml", "main", "nvidia.com/gpu", List.of(uuid));
            assertThat(pods(pipeline.collect("DCGM_FI_DEV_GPU_TEMP"), uuid)).containsExactly("ml/a/main");
            assertThat(pods(pipeline.collect("DCGM_FI_DEV_GPU_TEMP"), uuid)).containsExactly("ml/a/main");

            assertThat(pipeline.outcomes).containsExactly(PodAttributionTracker.Outcome.OK,
                    PodAttributionTracker.Outcome.RATE_LIMITED, PodAttributionTracker.Outcome.BACKING_OFF);
            assertThat(kubelet.rejectedCount()).isEqualTo(1);
        }
    }
}
