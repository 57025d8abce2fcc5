package dev.kgpu.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Every failure found in one load of the configuration (flags, environment, file), not just the first.
 * The message is one line: {@code invalid configuration: <failure>; <failure>...}, each failure worded
 * {@code <property> was '<value>' but it <reason>}.
 *
 * <p>Records in {@code dev.kgpu.config.v1} throw it from their compact constructors with property
 * names relative to the record ({@code replicas}); decoders re-throw it with the full path through
 * {@link #under(String)}.
 */
public final class InvalidConfigException extends ConfigException {

    private final List<ValidationFailure> failures;

    public InvalidConfigException(List<ValidationFailure> failures) {
        super(describe(failures));
        if (failures.isEmpty()) {
            throw new IllegalArgumentException("failures was '[]' but it must list at least one failure");
        }
        this.failures = List.copyOf(failures);
    }

    public InvalidConfigException(ValidationFailure failure) {
        this(List.of(failure));
    }

    /** Shorthand for records: {@code throw InvalidConfigException.of("replicas", 1, "must be at least 2")}. */
    public static InvalidConfigException of(String property, Object value, String reason) {
        return new InvalidConfigException(
                new ValidationFailure(property, value == null ? null : String.valueOf(value), reason));
    }

    /** Every failure, in the order found. */
    public List<ValidationFailure> failures() {
        return failures;
    }

    /** The same failures seen from an enclosing object (see {@link ValidationFailure#under(String)}). */
    public InvalidConfigException under(String parent) {
        return new InvalidConfigException(failures.stream().map(f -> f.under(parent)).toList());
    }

    @Override
    public int exitCode() {
        return 1;
    }

    private static String describe(List<ValidationFailure> failures) {
        return "invalid configuration: "
                + failures.stream().map(ValidationFailure::message).collect(Collectors.joining("; "));
    }
}
