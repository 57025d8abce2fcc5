package dev.kgpu.config;

import dev.kgpu.config.v1.FileField;
import dev.kgpu.config.v1.ValueType;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One setting of one binary: its flag names (the first is the name, the rest aliases), its environment
 * variables (the first one present wins, as in NVIDIA's flag library), its type and default, and the
 * config-file field it overrides when it has one.
 */
record Setting<T>(String name, List<String> flags, List<String> envs, ValueType<T> type, T defaultValue,
                  Optional<FileField<T>> field, String usage) {

    Setting {
        Objects.requireNonNull(name, "name");
        flags = List.copyOf(flags);
        envs = List.copyOf(envs);
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(usage, "usage");
    }

    /** A setting that overrides {@code field} of the config file. */
    static <T> Setting<T> of(FileField<T> field, List<String> flags, List<String> envs, String usage) {
        return new Setting<>(field.path(), flags, envs, field.type(), field.defaultValue(), Optional.of(field), usage);
    }

    /** A setting with no config-file field ({@code --kubelet-socket}, {@code NODE_NAME}). */
    static <T> Setting<T> flagOnly(List<String> flags, List<String> envs, ValueType<T> type, T defaultValue, String usage) {
        String name = flags.isEmpty() ? envs.getFirst() : "--" + flags.getFirst();
        return new Setting<>(name, flags, envs, type, defaultValue, Optional.empty(), usage);
    }

    /** Whether the flag takes no separate argument ({@code --oneshot} means {@code --oneshot=true}). */
    boolean isBoolean() {
        return defaultValue instanceof Boolean;
    }
}
