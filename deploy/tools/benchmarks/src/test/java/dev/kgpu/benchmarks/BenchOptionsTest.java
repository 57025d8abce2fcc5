package dev.kgpu.benchmarks;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BenchOptionsTest {

    @Test
    void defaultsAreTheIssuesWork() {
        BenchOptions options = BenchOptions.parse(List.of("--root=/src/kgpu"));

        assertThat(options.runs()).isEqualTo(5);
        assertThat(options.soak()).isEqualTo(Duration.ofMinutes(10));
        assertThat(options.allocates()).isEqualTo(10_000);
        assertThat(options.scrapesPerSecond()).isEqualTo(2);
        assertThat(options.profile()).isEqualTo("dgx-a100");
        assertThat(options.kgpuImages()).isEqualTo(Path.of("/src/kgpu/deploy/release/images/target/oci"));
        assertThat(options.nvidiaBin()).isEmpty();
        assertThat(options.variant().any()).isFalse();
        assertThat(options.pageCache()).isEqualTo(PageCache.UNPACKED);
    }

    @Test
    void everyBadOptionIsNamedWithItsValueInOneLine() {
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--runs=0", "--soak=ten", "--bogus=1", "--profile=", "--page-cache=cold",
                "--discovery-sink=nfd")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(String.join("\n",
                        "option was '--bogus=1' but it is not one of the benchmark's (--help lists them)",
                        "--runs was '0' but it must be a whole number from 1 to 100",
                        "--soak was 'ten' but it must be a whole number from 0 to 86400",
                        "--page-cache was 'cold' but it must be unpacked, read-in, evicted or as-left",
                        "--discovery-sink was 'nfd' but it must be node or file",
                        "--profile was '' but it must name a mock profile, e.g. dgx-a100"));
    }

    @Test
    void pageCacheStatesAreNamedAsTheUsageSaysThem() {
        assertThat(BenchOptions.parse(List.of("--page-cache=read-in")).pageCache()).isEqualTo(PageCache.READ_IN);
        assertThat(BenchOptions.parse(List.of("--page-cache=evicted")).pageCache()).isEqualTo(PageCache.EVICTED);
        assertThat(BenchOptions.parse(List.of("--page-cache=as-left")).pageCache()).isEqualTo(PageCache.AS_LEFT);
        assertThat(BenchOptions.USAGE).contains("--page-cache=<state>");
    }

    @Test
    void discoveryWritesTheNodesLabelsUnlessAskedForTheFeatureFile() {
        assertThat(BenchOptions.parse(List.of()).variant().discoveryFeatureFile()).isFalse();
        BenchOptions featureFile = BenchOptions.parse(List.of("--discovery-sink=file"));
        assertThat(featureFile.variant().discoveryFeatureFile()).isTrue();
        assertThat(featureFile.variant().any()).isTrue();
        assertThat(new KgpuImages(Path.of("/k"), Path.of("/k/oci"), java.util.Map.of(), featureFile.variant(), "kgpu")
                .labelsOnNode()).isFalse();
        assertThat(BenchOptions.parse(List.of("--discovery-sink=node")).variant().discoveryFeatureFile()).isFalse();
    }

    @Test
    void nativeOptionsAreRuntimeOptionsOnly() {
        assertThat(BenchOptions.parse(List.of("--native-options= -Xmx48m  -XX:MaxNewSize=8m ")).variant().nativeOptions())
                .containsExactly("-Xmx48m", "-XX:MaxNewSize=8m");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--native-options=-Xmn8m --oneshot")))
                .hasMessage("--native-options was '-Xmn8m --oneshot' but '--oneshot' is no runtime option (-Xmx48m,"
                        + " -XX:MaxNewSize=8m)");
    }

    @Test
    void trainingRecordsNewCachesSoItCannotUseGivenOnes(@org.junit.jupiter.api.io.TempDir Path dir) {
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--train=" + dir.resolve("t"), "--aot-caches=" + dir)))
                .hasMessageContaining("--train was '" + dir.resolve("t") + "' but it records new caches");
    }
}
