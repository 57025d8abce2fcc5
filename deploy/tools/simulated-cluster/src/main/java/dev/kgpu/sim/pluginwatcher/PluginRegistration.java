package dev.kgpu.sim.pluginwatcher;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One registration the plugin watcher attempted: what {@code GetInfo} said (empty fields when it failed) and what the
 * watcher told the plugin with {@code NotifyRegistrationStatus}: registered, or the error.
 */
public record PluginRegistration(Path socket, String type, String name, String endpoint, List<String> supportedVersions,
                                 Optional<String> error, Instant at) {

    public PluginRegistration {
        supportedVersions = List.copyOf(supportedVersions);
    }

    public boolean registered() {
        return error.isEmpty();
    }
}
