package dev.kgpu.plugin;

import dev.kgpu.config.ConfigException;
import dev.kgpu.config.DevicePluginConfig;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.plugin.lifecycle.RecoverySettings;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What the entry point does with its command line and environment: run, or exit at once with one line
 * (usage after {@code --help} and exit 0; every bad setting, each naming its field and value, and exit 1).
 */
public sealed interface StartupDecision {

    /** Start the plugin with this configuration. */
    record Run(DevicePluginConfig config, RecoverySettings recovery) implements StartupDecision {
    }

    /** Print {@code message} (stdout for status 0, stderr otherwise) and exit with {@code status}. */
    record Exit(int status, String message) implements StartupDecision {
    }

    static StartupDecision decide(String[] args, Function<String, String> environment) {
        List<ValidationFailure> failures = new ArrayList<>();
        DevicePluginConfig config = null;
        RecoverySettings recovery = null;
        try {
            config = DevicePluginConfig.load(args, environment);
        } catch (InvalidConfigException e) {
            failures.addAll(e.failures());
        } catch (ConfigException e) {
            return new Exit(e.exitCode(), e.getMessage());
        }
        try {
            recovery = RecoverySettings.fromEnvironment(environment);
        } catch (InvalidConfigException e) {
            failures.addAll(e.failures());
        }
        if (!failures.isEmpty()) {
            return new Exit(1, new InvalidConfigException(failures).getMessage());
        }
        return new Run(config, recovery);
    }
}
