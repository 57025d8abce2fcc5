package dev.kgpu.agent.settings;

import dev.kgpu.config.v1.FileField;
import dev.kgpu.config.v1.ValueType;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One setting of one agent: its flag names (the first is the name, the rest aliases; one letter makes a
 * short flag such as {@code -f}), its environment variables (the first one set wins, as in NVIDIA's flag
 * library), its {@link ValueType} and default, and the config-file field it overrides when it has one.
 * An agent lists its settings once; {@link ConfigLoader} reads them all with NVIDIA's precedence (flag,
 * then variable, then file, then default) and {@code --help} prints them.
 *
 * <pre>{@code
 * static final Setting<Duration> INTERVAL = Setting.of(List.of("collect-interval", "c"),
 *         List.of("DCGM_EXPORTER_INTERVAL"), ValueType.duration(ChronoUnit.MILLIS), Duration.ofSeconds(30),
 *         "time between collections, in milliseconds");
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public record Setting<T>(String name, List<String> flags, List<String> envs, ValueType<T> type, T defaultValue,
                         Optional<FileField<T>> field, String usage) {

    public Setting {
        Objects.requireNonNull(name, "name");
        flags = List.copyOf(flags);
        envs = List.copyOf(envs);
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(usage, "usage");
        if (flags.isEmpty() && envs.isEmpty() && field.isEmpty()) {
            throw new IllegalArgumentException("setting " + name + " was '' but it must have a flag, a variable or a file field");
        }
    }

    /** A setting that overrides {@code field} of the config file. */
    public static <T> Setting<T> of(FileField<T> field, List<String> flags, List<String> envs, String usage) {
        return new Setting<>(field.path(), flags, envs, field.type(), field.defaultValue(), Optional.of(field), usage);
    }

    /**
     * A setting with no config-file field ({@code --kubelet-socket}, {@code NODE_NAME}); with no flags it is
     * read from the environment only.
     */
    public static <T> Setting<T> of(List<String> flags, List<String> envs, ValueType<T> type, T defaultValue,
                                    String usage) {
        String name = flags.isEmpty() ? envs.getFirst() : "--" + flags.getFirst();
        return new Setting<>(name, flags, envs, type, defaultValue, Optional.empty(), usage);
    }

    /**
     * Whether the flag takes no separate argument: {@code --oneshot} means {@code --oneshot=true}, and
     * {@code --oneshot false} is the flag followed by a stray argument, as in Go's {@code flag} package.
     */
    public boolean isBoolean() {
        return defaultValue instanceof Boolean;
    }

    /** {@code -f} for a one-letter flag, {@code --collectors} otherwise. */
    static String dashed(String flag) {
        return (flag.length() == 1 ? "-" : "--") + flag;
    }
}
