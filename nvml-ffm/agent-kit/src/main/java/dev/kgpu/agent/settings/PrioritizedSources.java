package dev.kgpu.agent.settings;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Resolves settings against an ordered list of {@link ConfigSource}s: the first source with a value wins,
 * else the setting's default. A bad value is recorded as a failure and resolution goes on, so one load
 * reports every bad setting. Remembers which property set each setting, so that rules spanning several
 * settings can name the one the user actually wrote. Not thread-safe; one per load.
 */
final class PrioritizedSources {

    private final List<ConfigSource> sources;
    private final List<ValidationFailure> failures = new ArrayList<>();
    private final Map<String, String> origins = new HashMap<>();
    private final Map<Setting<?>, Object> resolved = new HashMap<>();

    PrioritizedSources(List<ConfigSource> sources) {
        this.sources = List.copyOf(sources);
    }

    /** The setting's value; resolved once, so a bad value is reported once however often it is asked for. */
    @SuppressWarnings("unchecked")
    <T> T resolve(Setting<T> setting) {
        if (resolved.containsKey(setting)) {
            return (T) resolved.get(setting);
        }
        T value = lookup(setting);
        resolved.put(setting, value);
        return value;
    }

    private <T> T lookup(Setting<T> setting) {
        for (ConfigSource source : sources) {
            Optional<ConfigSource.Found<T>> found;
            try {
                found = source.lookup(setting);
            } catch (InvalidConfigException e) {
                failures.addAll(e.failures());
                return setting.defaultValue();
            }
            if (found.isPresent()) {
                origins.put(setting.name(), found.get().property());
                return found.get().value();
            }
        }
        return setting.defaultValue();
    }

    /** The property that set the setting ({@code --mig-strategy}, {@code MIG_STRATEGY}), once resolved. */
    Optional<String> origin(Setting<?> setting) {
        return Optional.ofNullable(origins.get(setting.name()));
    }

    void fail(ValidationFailure failure) {
        failures.add(failure);
    }

    void failAll(List<ValidationFailure> more) {
        failures.addAll(more);
    }

    List<ValidationFailure> failures() {
        return failures;
    }

    /**
     * {@code failure} re-attributed to the flag or environment variable that set its property, when one
     * did: {@code flags.migStrategy was 'mixed'} becomes {@code MIG_STRATEGY was 'mixed'}.
     */
    ValidationFailure attributed(ValidationFailure failure) {
        String origin = origins.get(failure.property());
        return origin == null ? failure : new ValidationFailure(origin, failure.value(), failure.reason());
    }
}
