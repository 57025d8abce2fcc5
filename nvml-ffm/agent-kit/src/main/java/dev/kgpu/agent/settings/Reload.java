package dev.kgpu.agent.settings;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import java.util.List;

/**
 * The outcome of re-reading the configuration on SIGHUP: the new configuration, or why it was refused,
 * in which case the agent keeps running with the configuration it has.
 *
 * <pre>{@code
 * switch (loader.reload()) {
 *     case Reload.Loaded<DevicePluginConfig>(var config) -> restartServers(config);
 *     case Reload.Rejected<DevicePluginConfig> rejected -> log.error("keeping the running config: " + rejected.message());
 * }
 * }</pre>
 *
 * @param <T> the agent's settings, e.g. the plugin's {@code DevicePluginConfig} or discovery's {@code FeatureDiscoveryConfig}
 */
public sealed interface Reload<T> permits Reload.Loaded, Reload.Rejected {

    record Loaded<T>(T config) implements Reload<T> {
    }

    record Rejected<T>(InvalidConfigException reason) implements Reload<T> {
        public List<ValidationFailure> failures() {
            return reason.failures();
        }

        /** One line: {@code invalid configuration: <failure>; <failure>}. */
        public String message() {
            return reason.getMessage();
        }
    }
}
