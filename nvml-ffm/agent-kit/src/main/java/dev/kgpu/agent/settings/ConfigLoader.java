package dev.kgpu.agent.settings;

import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.Config;
import dev.kgpu.config.v1.ConfigFile;
import dev.kgpu.config.v1.FileField;
import dev.kgpu.config.v1.Resources;
import dev.kgpu.config.v1.Sharing;
import dev.kgpu.config.v1.ValueType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Loads one agent's settings from its command line, its environment and, when the agent has one, its
 * config file, with NVIDIA's precedence (flag, then environment variable, then file, then default), and
 * loads them again on SIGHUP. Every agent reads its settings through one of these, so flags, variables,
 * {@code --help} and the wording of failures ({@code <property> was '<value>' but it <reason>}) are the
 * same everywhere. The command line and the environment are fixed at construction; {@link #reload()}
 * re-reads the file.
 *
 * <pre>{@code
 * ConfigLoader<ExporterSettings> loader = new ConfigLoader<>(ExporterSettings.AGENT, args, System::getenv);
 * ExporterSettings settings = loader.load();   // ConfigException: print it, exit with its exitCode()
 * }</pre>
 *
 * <p>Thread-safe: each call works on its own state.
 *
 * @param <T> the agent's validated settings record
 */
public final class ConfigLoader<T> {

    /**
     * One agent's settings and how they become its record.
     *
     * @param name       the binary, for messages and usage: {@code kgpu-exporter}, {@code the device plugin}
     * @param settings   every setting, in usage order, the config-file setting among them when there is one
     * @param configFile the config-file setting, resolved before the file is read; empty when the agent
     *                   reads no config file
     * @param builder    builds the agent's record from the resolved settings; reports what it finds wrong
     *                   through {@link Resolved#fail}, or throws {@link InvalidConfigException} with
     *                   config-file property paths, which the loader re-attributes to the flag or variable
     *                   that set them
     */
    public record Agent<T>(String name, List<Setting<?>> settings, Optional<Setting<String>> configFile,
                           Function<Resolved, T> builder) {

        public Agent {
            Objects.requireNonNull(name, "name");
            settings = List.copyOf(settings);
            Objects.requireNonNull(configFile, "configFile");
            Objects.requireNonNull(builder, "builder");
            if (configFile.isPresent() && !settings.contains(configFile.get())) {
                throw new IllegalArgumentException("configFile was '" + configFile.get().name()
                        + "' but it must be one of the settings");
            }
        }

        /** An agent without a config file. */
        public Agent(String name, List<Setting<?>> settings, Function<Resolved, T> builder) {
            this(name, settings, Optional.empty(), builder);
        }

        T build(Resolved resolved) {
            return builder.apply(resolved);
        }
    }

    private final Agent<T> agent;
    private final List<String> args;
    private final Function<String, String> environment;

    /**
     * @param args        the command line, without the program name
     * @param environment reads one environment variable, null when unset ({@code System::getenv} in
     *                    production), so tests never touch the real environment
     */
    public ConfigLoader(Agent<T> agent, String[] args, Function<String, String> environment) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.args = List.of(args);
        this.environment = Objects.requireNonNull(environment, "environment");
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
        String configPath = agent.configFile().map(early::resolve).orElse("");
        ConfigFile file = ConfigFile.none();
        Optional<Path> configFile = Optional.empty();
        if (!configPath.isEmpty()) {
            configFile = Optional.of(Path.of(configPath));
            try {
                Setting<String> named = agent.configFile().orElseThrow();
                file = ConfigFile.read(configFile.get(), early.origin(named).orElse(named.name()));
            } catch (InvalidConfigException e) {
                early.failAll(e.failures());
            }
        }
        PrioritizedSources sources = new PrioritizedSources(List.of(flags, env, new ConfigSource.File(file)));
        sources.failAll(early.failures());
        for (Setting<?> setting : agent.settings()) {
            if (agent.configFile().filter(setting::equals).isEmpty()) {
                sources.resolve(setting); // so that failures come in the order of the settings
            }
        }
        Resolved resolved = new Resolved(sources, file, configFile);
        boolean settingsRead = sources.failures().isEmpty();
        T result = null;
        try {
            result = agent.build(resolved);
        } catch (InvalidConfigException e) {
            // a rule across settings judges the user's values: when a setting was bad, the rule saw its
            // default standing in for it, and what it says would mislead (COMPONENT=bogus read as all components
            // then demanding OPERATOR_NAMESPACE)
            if (settingsRead) {
                sources.failAll(e.failures().stream().map(sources::attributed).toList());
            }
        }
        if (!sources.failures().isEmpty()) {
            throw new InvalidConfigException(sources.failures());
        }
        return result;
    }

    /**
     * The process's environment as an agent's entry point reads it: a Java system property
     * {@code -DNAME=value} wins over the environment variable {@code NAME}, in the order MicroProfile Config
     * gives them, so a packaged agent launched with {@code -D} settings (as Quarkus' integration tests launch
     * it) reads them like variables.
     */
    public static String processEnvironment(String name) {
        String property = System.getProperty(name);
        return property != null ? property : System.getenv(name);
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
            List<String> names = setting.flags().stream().map(Setting::dashed).toList();
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

    /**
     * The resolved settings of one load, handed to the agent's builder: each setting's value, who set it,
     * and a place to report what the builder finds wrong. Not thread-safe; one per load.
     */
    public static final class Resolved {
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

        /** The setting's value: from the first source that sets it, else its default; the default when it was bad. */
        public <V> V get(Setting<V> setting) {
            return sources.resolve(setting);
        }

        /**
         * How the user named the setting, for a message about its value (after {@link #get}): the flag as
         * written ({@code -c}), the variable ({@code DCGM_EXPORTER_INTERVAL}) or the file path that set it;
         * when nothing did, its first variable, else its name.
         */
        public String property(Setting<?> setting) {
            return sources.origin(setting)
                    .orElse(setting.envs().isEmpty() ? setting.name() : setting.envs().getFirst());
        }

        /** Records what is wrong with a setting's value, in the property the user wrote. */
        public void fail(Setting<?> setting, String value, String reason) {
            sources.fail(new ValidationFailure(property(setting), value, reason));
        }

        /** Records failures found while building, e.g. in settings read outside {@link Setting}s. */
        public void fail(List<ValidationFailure> failures) {
            sources.failAll(failures);
        }

        /**
         * A setting NVIDIA names and accepts at a value kgpu cannot run with as given (an interval of 0 would
         * poll in a busy loop): the value, raised to {@code floor} when it is lower, with a warning naming the
         * setting. kgpu never refuses what NVIDIA accepts; for kgpu's own settings a {@link ValueType} with a
         * minimum refuses instead.
         *
         * @param why what the low value would do, ending the warning: "would poll without pause"
         */
        public <V extends Comparable<? super V>> V atLeast(Setting<V> setting, V floor, String why) {
            V value = get(setting);
            if (value.compareTo(floor) >= 0) {
                return value;
            }
            warnings.add(new ConfigWarning(property(setting), "is '" + setting.type().format(value)
                    + "', which NVIDIA accepts but " + why + "; kgpu uses '" + setting.type().format(floor) + "'"));
            return floor;
        }

        /** The config file read, if any. */
        public Optional<Path> configFile() {
            return configFile;
        }

        /** What the config file held that was accepted but most likely not meant. */
        public List<ConfigWarning> warnings() {
            return warnings;
        }

        /**
         * The effective {@link Config}: each {@link FileField} resolved through the agent's binding for it,
         * or from the file and its default when the agent has no flag for it.
         */
        public Config config(List<Setting<?>> bindings) {
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
