package dev.kgpu.discovery.run;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.discovery.labels.LabelSettings;
import dev.kgpu.discovery.settings.FeatureDiscoveryConfig;
import dev.kgpu.discovery.settings.LabelSinkKind;
import dev.kgpu.discovery.testing.TestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigMappingTest {

    @TempDir
    Path folder;

    DiscoverySettings load(Map<String, String> environment, String... args) {
        FeatureDiscoveryConfig config = FeatureDiscoveryConfig.load(args, environment::get);
        return ConfigMapping.settings(config);
    }

    @Test
    void gfdDefaultsWithKgpusAutomaticSink() {
        DiscoverySettings settings = load(Map.of("NODE_NAME", "node-a"));

        assertThat(settings.labels()).isEqualTo(TestSettings.labels());
        assertThat(settings.sleepInterval()).contains(Duration.ofSeconds(60));
        assertThat(settings.sink()).isEqualTo(LabelSinkKind.AUTO);
        assertThat(settings.failOnInitError()).isTrue();
        assertThat(settings.outputFile()).isEqualTo(Path.of("/etc/kubernetes/node-feature-discovery/features.d/gfd"));
        assertThat(settings.machineTypeFile()).contains(Path.of("/sys/class/dmi/id/product_name"));
        assertThat(settings.nodeName()).contains("node-a");
        assertThat(settings.sysfsRoot()).isEqualTo(Path.of("/sys"));
    }

    @Test
    void gfdsEnvironmentNamesAndTheFileSinkOfUseNodeFeatureApiFalse() {
        DiscoverySettings settings = load(Map.of(
                "GFD_USE_NODE_FEATURE_API", "false", "GFD_SLEEP_INTERVAL", "infinite", "GFD_ONESHOT", "true",
                "GFD_NO_TIMESTAMP", "true", "MIG_STRATEGY", "mixed", "FAIL_ON_INIT_ERROR", "false",
                "KGPU_SYSFS_ROOT", "/host/sys"));

        assertThat(settings.sink()).isEqualTo(LabelSinkKind.FILE);
        assertThat(settings.sleepInterval()).isEmpty();
        assertThat(settings.oneshot()).isTrue();
        assertThat(settings.labels().noTimestamp()).isTrue();
        assertThat(settings.labels().migStrategy()).isEqualTo(MigStrategy.MIXED);
        assertThat(settings.failOnInitError()).isFalse();
        assertThat(settings.sysfsRoot()).isEqualTo(Path.of("/host/sys"));
        assertThat(settings.removeOutputFileOnExit()).isFalse();
    }

    @Test
    void sharingComesFromTheSectionGfdReads() throws Exception {
        Path file = Files.writeString(folder.resolve("config.yaml"), """
                version: v1
                sharing:
                  timeSlicing:
                    renameByDefault: true
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                    - name: nvidia.com/mig-1g.10gb
                      replicas: 2
                """);

        DiscoverySettings settings = load(Map.of("NODE_NAME", "node-a", "KGPU_LABEL_SINK", "node", "CONFIG_FILE", file.toString()));

        assertThat(settings.sink()).isEqualTo(LabelSinkKind.NODE);
        assertThat(settings.labels().sharing()).isEqualTo(new LabelSettings.Sharing(SharingStrategy.TIME_SLICING,
                Map.of("nvidia.com/gpu", 4, "nvidia.com/mig-1g.10gb", 2), Set.of("nvidia.com/gpu", "nvidia.com/mig-1g.10gb")));
    }

    @Test
    void mpsWins() throws Exception {
        Path file = Files.writeString(folder.resolve("config.yaml"), """
                version: v1
                flags:
                  mpsRoot: /run/nvidia/mps
                sharing:
                  mps:
                    resources:
                    - name: gpu
                      replicas: 2
                """);

        DiscoverySettings settings = load(Map.of("NODE_NAME", "node-a", "CONFIG_FILE", file.toString()));

        assertThat(settings.labels().sharing()).isEqualTo(new LabelSettings.Sharing(SharingStrategy.MPS,
                Map.of("nvidia.com/gpu", 2), Set.of()));
        assertThat(settings.nodeName()).isEqualTo(Optional.of("node-a"));
    }
}
