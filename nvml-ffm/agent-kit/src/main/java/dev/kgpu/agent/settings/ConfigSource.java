package dev.kgpu.agent.settings;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.v1.ConfigFile;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One place a setting's value can come from. {@link PrioritizedSources} asks them in order and the first
 * that has a value wins, as JOSDK's {@code AggregatePriorityListConfigProvider} does; that order is
 * NVIDIA's: command-line flag, then environment variable, then config file, then the default.
 */
sealed interface ConfigSource permits ConfigSource.Flags, ConfigSource.Environment, ConfigSource.File {

    /**
     * The value this source gives {@code setting}, with the property that set it ({@code --mig-strategy},
     * {@code MIG_STRATEGY}, {@code flags.migStrategy}).
     *
     * @throws InvalidConfigException when this source has a value for the setting but it is bad
     */
    <T> Optional<Found<T>> lookup(Setting<T> setting);

    record Found<T>(T value, String property) {
    }

    /** Command-line flags; a repeated flag's last value wins, list flags gather every value. */
    record Flags(CommandLine commandLine) implements ConfigSource {
        @Override
        public <T> Optional<Found<T>> lookup(Setting<T> setting) {
            List<CommandLine.Occurrence> occurrences = commandLine.values().get(setting);
            if (occurrences == null || occurrences.isEmpty()) {
                return Optional.empty();
            }
            String property = occurrences.getLast().flag();
            List<String> texts = occurrences.stream().map(CommandLine.Occurrence::value).toList();
            try {
                return Optional.of(new Found<>(setting.type().fromTexts(texts), property));
            } catch (IllegalArgumentException e) {
                throw InvalidConfigException.of(property, String.join(",", texts), e.getMessage());
            }
        }
    }

    /**
     * Environment variables, read through a function ({@code System::getenv} in production) so tests
     * never touch the real environment. A variable that is set counts even when empty, as in NVIDIA's
     * flag library: {@code KUBELET_SOCKET=""} turns registration off, {@code NVIDIA_DEV_ROOT=""} means
     * the driver root, and an empty boolean or strategy is an error.
     */
    record Environment(Function<String, String> environment) implements ConfigSource {
        @Override
        public <T> Optional<Found<T>> lookup(Setting<T> setting) {
            for (String name : setting.envs()) {
                String text = environment.apply(name);
                if (text != null) {
                    try {
                        return Optional.of(new Found<>(setting.type().fromText(text), name));
                    } catch (IllegalArgumentException e) {
                        throw InvalidConfigException.of(name, text, e.getMessage());
                    }
                }
            }
            return Optional.empty();
        }
    }

    /** The config file's value for the setting's field; the file was validated when it was decoded. */
    record File(ConfigFile file) implements ConfigSource {
        @Override
        public <T> Optional<Found<T>> lookup(Setting<T> setting) {
            return setting.field().flatMap(field -> file.value(field).map(v -> new Found<>(v, field.path())));
        }
    }
}
