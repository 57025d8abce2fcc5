package dev.kgpu.benchmarks;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ResultsTest {

    private static final Subject KGPU = new KgpuImages(Path.of("/k"), Path.of("/k/oci"), java.util.Map.of(), KgpuImages.Variant.NONE,
            "kgpu native (images)");

    @Test
    void theTableShowsMediansAndRangesAndKgpusVerdictAgainstEachTarget() {
        Results results = new Results();
        results.subject(KGPU);
        results.add(KGPU, Figure.PLUGIN_READY, 0.9);
        results.add(KGPU, Figure.PLUGIN_READY, 0.04);
        results.add(KGPU, Figure.PLUGIN_READY, 0.05);
        results.add(KGPU, Figure.PLUGIN_RSS_READY, 70);
        results.add(KGPU, Figure.PLUGIN_CPU_READY, 0.3);

        assertThat(results.table().lines().toList()).containsExactly(
                "| figure | target | kgpu native (images) | kgpu: target |",
                "|---|---|---|---|",
                "| plugin: start → registered, devices listed at the kubelet | ≤ 0.1 s | 0.05 s (0.04–0.90) | met |",
                "| plugin: CPU time to registered |  | 0.30 s |  |",
                "| plugin: RSS at registered | ≤ 40 MiB | 70 MiB | missed |");
    }

    @Test
    void percentilesAreNearestRank() {
        long[] nanos = new long[100];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = (100 - i) * 1_000_000L;
        }

        assertThat(Results.percentileMillis(nanos, 50)).isEqualTo(50.0);
        assertThat(Results.percentileMillis(nanos, 99)).isEqualTo(99.0);
        assertThat(Results.percentileMillis(nanos, 100)).isEqualTo(100.0);
    }
}
