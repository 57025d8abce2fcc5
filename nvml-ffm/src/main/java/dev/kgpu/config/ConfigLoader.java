package dev.kgpu.config;

import dev.kgpu.config.v1.Config;
import dev.kgpu.config.v1.ConfigFile;
import dev.kgpu.config.v1.FileField;
import dev.kgpu.config.v1.Resources;
import dev.kgpu.config.v1.Sharing;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Loads one agent's configuration from its command line, its environment and its config file, with
 * NVIDIA's precedence (flag, then environment variable, then file, then default), and loads it again on
 * SIGHUP. The command line and the environment are fixed at construction; {@link #reload()} re-reads the
 * file. Obtain one from {@link DevicePluginConfig#loader} or {@link FeatureDiscoveryConfig#loader}.
 *
 * <p>Thread-safe: each call works on its own state.
 *
 * @param <T> {@link DevicePluginConfig} or {@link FeatureDiscoveryConfig}
 */
public final class ConfigLoader<T> {

    /**
     * What differs between the two agents.
     *
     * @param name       for messages and usage: {@code the device plugin}
     * @param settings   every flag-bearing setting, in usage order, the config-file setting among them
     * @param configFile the config-file setting, resolved before the file is read
     * @param builder    builds the agent's record from the resolved settings; may throw
     *                   {@link InvalidConfigException} with config-file property paths, which the loader
     *                   re-attributes to the flag or variable that set them
     */
    record Agent<T>(String name, List<Setting<?>> settings, Setting<String> configFile, Function<Resolved, T> builder) {
        T build(Resolved resolved) {
            return builder.apply(resolved);
        }
    }

    private final Agent<T> agent;
    private final List<String> args;
    private final Function<String, String> environment;

    ConfigLoader(Agent<T> agent, String[] args, Function<String, String> environment) {
        this.agent = agent;
        this.args = List.of(args);
        this.environment = environment;
    }

    /**
     * Loads the configuration.
     *
     * @throws UsageRequestedException when {@code --help} was given: print the message, exit 0
     * @throws InvalidConfigException  with every failure found: print the message, exit 1
     */
    public T load() {
        CommandLine commandLine = CommandLine.parse(args.toArray(String[]::new), agent.settings(), agent.name());
        if (commandLine.helpRequested()) {
            throw new UsageRequestedException(usage());
        }
        ConfigSource flags = new ConfigSource.Flags(commandLine);
        ConfigSource env = new ConfigSource.Environment(environment);
        PrioritizedSources early = new PrioritizedSources(List.of(flags, env));
        early.failAll(commandLine.failures());
        String configPath = early.resolve(agent.configFile());
        ConfigFile file = ConfigFile.none();
        Optional<Path> configFile = Optional.empty();
        if (!configPath.isEmpty()) {
            configFile = Optional.of(Path.of(configPath));
            try {
                file = ConfigFile.read(configFile.get(), originOf(commandLine, agent.configFile()));
            } catch (InvalidConfigException e) {
                early.failAll(e.failures());
            }
        }
        PrioritizedSources sources = new PrioritizedSources(List.of(flags, env, new ConfigSource.File(file)));
        sources.failAll(early.failures());
        Resolved resolved = new Resolved(sources, file, configFile);
        T result = null;
        try {
            result = agent.build(resolved);
        } catch (InvalidConfigException e) {
            sources.failAll(e.failures().stream()
                    .filter(f -> !sources.hasFailed(f.property()))
                    .map(sources::attributed)
                    .toList());
        }
        if (!sources.failures().isEmpty()) {
            throw new InvalidConfigException(sources.failures());
        }
        return result;
    }

    /** Loads the configuration again (on SIGHUP); on failure the caller keeps the configuration it runs with. */
    public Reload<T> reload() {
        try {
            return new Reload.Loaded<>(load());
        } catch (InvalidConfigException e) {
            return new Reload.Rejected<>(e);
        }
    }

    /** The {@code --help} text: each flag with its environment variables, config-file field and default. */
    public String usage() {
        StringBuilder out = new StringBuilder("Flags of ").append(agent.name()).append(":\n")
                .append("Each flag may also be set by the environment variables shown, or by the config file field;\n")
                .append("a flag wins over a variable, which wins over the file.\n\n");
        for (Setting<?> setting : agent.settings()) {
            appendUsage(out, setting);
        }
        return out.toString();
    }

    private static <V> void appendUsage(StringBuilder out, Setting<V> setting) {
        out.append("  ");
        if (setting.flags().isEmpty()) {
            out.append(String.join(", ", setting.envs()));
        } else {
            List<String> names = setting.flags().stream().map(f -> "--" + f).toList();
            out.append(String.join(", ", names));
            if (!setting.isBoolean()) {
                out.append("=<").append(setting.type().describe()).append('>');
            }
        }
        out.append("\n        ").append(setting.usage());
        List<String> where = new ArrayList<>();
        if (!setting.flags().isEmpty() && !setting.envs().isEmpty()) {
            where.add("env " + String.join(", ", setting.envs()));
        }
        setting.field().ifPresent(f -> where.add("config " + f.path()));
        where.add("default '" + setting.type().format(setting.defaultValue()) + "'");
        out.append(" (").append(String.join("; ", where)).append(")\n");
    }

    private static String originOf(CommandLine commandLine, Setting<?> setting) {
        List<CommandLine.Occurrence> occurrences = commandLine.values().get(setting);
        if (occurrences != null && !occurrences.isEmpty()) {
            return occurrences.getLast().flag();
        }
        return setting.envs().isEmpty() ? setting.name() : String.join("/", setting.envs());
    }

    /** The resolved settings of one load, handed to {@link Agent#build}. */
    static final class Resolved {
        private final PrioritizedSources sources;
        private final ConfigFile file;
        private final Optional<Path> configFile;
        private final List<ConfigWarning> warnings;

        Resolved(PrioritizedSources sources, ConfigFile file, Optional<Path> configFile) {
            this.sources = sources;
            this.file = file;
            this.configFile = configFile;
            this.warnings = new ArrayList<>(file.warnings());
        }

        <V> V get(Setting<V> setting) {
            return sources.resolve(setting);
        }

        Optional<Path> configFile() {
            return configFile;
        }

        /** Records failures found while building, e.g. in settings read outside {@link Setting}s. */
        void fail(List<ValidationFailure> failures) {
            sources.failAll(failures);
        }

        List<ConfigWarning> warnings() {
            return warnings;
        }

        /**
         * The effective {@link Config}: each {@link FileField} resolved through the agent's binding for it,
         * or from the file and its default when the agent has no flag for it.
         */
        Config config(List<Setting<?>> bindings) {
            Map<FileField<?>, Setting<?>> byField = new HashMap<>();
            for (Setting<?> binding : bindings) {
                binding.field().ifPresent(f -> byField.put(f, binding));
            }
            Map<FileField<?>, Object> values = new HashMap<>();
            for (FileField<?> field : FileField.ALL) {
                values.put(field, resolve(field, byField));
            }
            Resources resources = file.resources();
            Sharing sharing = file.sharing();
            try {
                return Config.assemble(new Config.FieldValues() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <V> V get(FileField<V> field) {
                        return (V) values.get(field);
                    }
                }, resources, sharing);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("resolved settings were validated, yet the config refused them", e);
            }
        }

        @SuppressWarnings("unchecked")
        private <V> V resolve(FileField<V> field, Map<FileField<?>, Setting<?>> byField) {
            Setting<V> setting = (Setting<V>) byField.get(field);
            return sources.resolve(setting != null ? setting : Setting.of(field, List.of(), List.of(), ""));
        }
    }
}
