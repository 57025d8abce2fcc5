package dev.kgpu.discovery.testing;

import dev.kgpu.agent.Backoff;
import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.discovery.labels.LabelSettings;
import dev.kgpu.discovery.run.DiscoverySettings;
import dev.kgpu.discovery.settings.LabelSinkKind;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Discovery's settings for tests: GFD's defaults (as {@code FeatureDiscoveryConfig} gives them with no
 * flags, variables or file) changed one field at a time. Production builds them from the configuration
 * only ({@code ConfigMapping}).
 */
public final class TestSettings {

    private TestSettings() {
    }

    /** GFD's label settings: MIG strategy none, with a timestamp, no sharing. */
    public static LabelSettings labels() {
        return new LabelSettings(MigStrategy.NONE, false, LabelSettings.Sharing.NONE);
    }

    public static LabelSettings labels(MigStrategy strategy) {
        return new LabelSettings(strategy, false, LabelSettings.Sharing.NONE);
    }

    public static LabelSettings labels(LabelSettings.Sharing sharing) {
        return new LabelSettings(MigStrategy.NONE, false, sharing);
    }

    public static LabelSettings labels(MigStrategy strategy, LabelSettings.Sharing sharing) {
        return new LabelSettings(strategy, false, sharing);
    }

    public static LabelSettings withoutTimestamp(LabelSettings labels) {
        return new LabelSettings(labels.migStrategy(), true, labels.sharing());
    }

    /** A builder from GFD's defaults, for a node named {@code nodeName} in {@code namespace}. */
    public static Discovery discovery(String nodeName, String namespace) {
        return new Discovery(nodeName, namespace);
    }

    /** Discovery's settings, from GFD's defaults. Not thread-safe; one per test. */
    public static final class Discovery {
        private LabelSettings labels = TestSettings.labels();
        private boolean oneshot;
        private Optional<Duration> sleepInterval = Optional.of(Duration.ofSeconds(60));
        private Optional<Path> machineTypeFile = Optional.of(Path.of("/sys/class/dmi/id/product_name"));
        private Path outputFile = Path.of("/etc/kubernetes/node-feature-discovery/features.d/gfd");
        private boolean failOnInitError = true;
        private LabelSinkKind sink = LabelSinkKind.AUTO;
        private final String nodeName;
        private final String namespace;
        private Path sysfsRoot = Path.of("/sys");
        private Backoff.Policy retry = Backoff.Policy.DEFAULT;

        private Discovery(String nodeName, String namespace) {
            this.nodeName = nodeName;
            this.namespace = namespace;
        }

        public Discovery labels(LabelSettings value) {
            labels = value;
            return this;
        }

        public Discovery sink(LabelSinkKind value) {
            sink = value;
            return this;
        }

        public Discovery outputFile(Path value) {
            outputFile = value;
            return this;
        }

        public Discovery timing(boolean newOneshot, Optional<Duration> newInterval, Backoff.Policy newRetry) {
            oneshot = newOneshot;
            sleepInterval = newInterval;
            retry = newRetry;
            return this;
        }

        public Discovery node(Optional<Path> newMachineTypeFile, Path newSysfsRoot, boolean newFailOnInitError) {
            machineTypeFile = newMachineTypeFile;
            sysfsRoot = newSysfsRoot;
            failOnInitError = newFailOnInitError;
            return this;
        }

        public DiscoverySettings build() {
            return new DiscoverySettings(labels, oneshot, sleepInterval, machineTypeFile, outputFile, failOnInitError,
                    sink, Optional.of(nodeName), Optional.of(namespace), Optional.empty(), sysfsRoot, retry);
        }
    }
}
