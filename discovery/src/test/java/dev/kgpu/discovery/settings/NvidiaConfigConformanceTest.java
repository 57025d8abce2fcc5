package dev.kgpu.discovery.settings;

import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * NVIDIA's own config files ({@code nvml-ffm/nvidia-config/conformance/k8s-device-plugin/ORIGIN.md}) read by
 * kgpu's discovery: every file NVIDIA accepts starts it. The plugin's {@code NvidiaConfigConformanceTest} checks
 * the plugin with the same files, and that every file NVIDIA refuses is refused.
 */
class NvidiaConfigConformanceTest {

    /** NVIDIA's config files and their outcomes, shared with the plugin's conformance test (tests run in discovery/). */
    static final Path ROOT = Path.of("..", "nvml-ffm", "nvidia-config", "conformance", "k8s-device-plugin");

    @Test
    void discoveryStartsWithEveryFileNvidiaAccepts() throws IOException {
        List<String[]> accepted = Files.readAllLines(ROOT.resolve("cases.tsv")).stream()
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(line -> line.split("\t", -1))
                .filter(row -> row[1].equals("accepted"))
                .toList();
        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(accepted).as("the files NVIDIA accepts").isNotEmpty();
        for (String[] row : accepted) {
            Path file = ROOT.resolve("configs").resolve(row[0]);
            softly.check(() -> assertThatCode(() -> FeatureDiscoveryConfig.load(new String[] {"--config-file=" + file},
                            Map.of("NODE_NAME", "node")::get))
                    .as("discovery must start with %s, which NVIDIA accepts (%s)", row[0], row[2])
                    .doesNotThrowAnyException());
        }
        softly.assertAll();
    }
}
