package dev.kgpu.discovery.run;

import dev.kgpu.agent.Backoff;
import dev.kgpu.config.v1.ReplicatedResource;
import dev.kgpu.config.v1.ReplicatedResources;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.config.v1.SleepInterval;
import dev.kgpu.discovery.labels.LabelSettings;
import dev.kgpu.discovery.settings.FeatureDiscoveryConfig;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the configuration ({@code FeatureDiscoveryConfig}: NVIDIA's config file v1 with GFD's flags and
 * environment names) into discovery's own settings.
 */
public final class ConfigMapping {

    private ConfigMapping() {
    }

    public static DiscoverySettings settings(FeatureDiscoveryConfig config) {
        var gfd = config.gfd();
        LabelSettings labels = new LabelSettings(
                config.config().flags().migStrategy(),
                gfd.noTimestamp(),
                sharing(config));
        Optional<java.time.Duration> interval = switch (gfd.sleepInterval()) {
            case SleepInterval.Every every -> Optional.of(every.effective());
            case SleepInterval.Infinite infinite -> Optional.empty();
        };
        return new DiscoverySettings(
                labels,
                gfd.oneshot(),
                interval,
                gfd.machineTypeFile().isEmpty() ? Optional.empty() : Optional.of(Path.of(gfd.machineTypeFile())),
                Path.of(gfd.outputFile()),
                config.config().flags().failOnInitError(),
                config.labelSink(), // the config loader already turned useNodeFeatureAPI=false into the file sink
                config.nodeName(),
                Optional.of(config.namespace()),
                config.podName(),
                config.sysfsRoot(),
                Backoff.Policy.DEFAULT);
    }

    /**
     * GFD reads the MPS section when the file has one, else the time-slicing section; the first entry for
     * a resource name gives its replicas.
     */
    static LabelSettings.Sharing sharing(FeatureDiscoveryConfig config) {
        var sharing = config.config().sharing();
        SharingStrategy strategy = sharing.strategy();
        Optional<ReplicatedResources> section = sharing.mps().or(sharing::timeSlicing);
        if (section.isEmpty()) {
            return new LabelSettings.Sharing(strategy, Map.of(), Set.of());
        }
        Map<String, Integer> replicas = new LinkedHashMap<>();
        Set<String> renamed = new HashSet<>();
        for (ReplicatedResource resource : section.get().resources()) {
            String name = resource.name().value();
            if (replicas.putIfAbsent(name, resource.replicas()) == null
                    && (section.get().renameByDefault() || resource.rename().isPresent())) {
                renamed.add(name);
            }
        }
        return new LabelSettings.Sharing(strategy, replicas, renamed);
    }
}
