package dev.kgpu.config;

import java.util.Objects;

/**
 * Something in the configuration that kgpu accepts, as NVIDIA's agents do, but that the user most
 * likely did not mean: an unknown field (NVIDIA's decoder ignores it silently), a field name matched
 * only case-insensitively, time-slicing shadowed by MPS. Agents log each one at WARN at start-up and
 * on every reload.
 *
 * <p>Immutable and thread-safe.
 */
public record ConfigWarning(String property, String message) {

    public ConfigWarning {
        Objects.requireNonNull(property, "property");
        Objects.requireNonNull(message, "message");
    }

    /** This warning seen from an enclosing object, as {@link ValidationFailure#under(String)}. */
    public ConfigWarning under(String parent) {
        return new ConfigWarning(ValidationFailure.join(parent, property), message);
    }

    @Override
    public String toString() {
        return property + ": " + message;
    }
}
