package dev.kgpu.config;

import java.util.Objects;

/**
 * One bad setting, worded as Micrometer's {@code ValidationException} words it:
 * {@code <property> was '<value>' but it <reason>}.
 *
 * <p>{@code property} names the setting the way the user wrote it: a config-file path such as
 * {@code sharing.timeSlicing.resources[0].replicas}, a flag such as {@code --mig-strategy}, or an
 * environment variable such as {@code MIG_STRATEGY}. {@code value} is the offending value as written
 * ({@code null} when it is missing). {@code reason} starts with a verb: "must be at least 2".
 *
 * <p>Immutable and thread-safe.
 */
public record ValidationFailure(String property, String value, String reason) {

    /** Values longer than this are cut in messages, so one bad line stays one readable line. */
    static final int MAX_VALUE_LENGTH = 120;

    public ValidationFailure {
        Objects.requireNonNull(property, "property");
        Objects.requireNonNull(reason, "reason");
    }

    /** A failure for a value that is missing altogether. */
    public static ValidationFailure missing(String property, String reason) {
        return new ValidationFailure(property, null, reason);
    }

    /** {@code <property> was '<value>' but it <reason>}. */
    public String message() {
        String shown = value == null ? "null" : value;
        if (shown.length() > MAX_VALUE_LENGTH) {
            shown = shown.substring(0, MAX_VALUE_LENGTH) + "...";
        }
        return property + " was '" + shown + "' but it " + reason;
    }

    /**
     * This failure seen from an enclosing object: {@code replicas} under {@code sharing.mps.resources[1]}
     * becomes {@code sharing.mps.resources[1].replicas}.
     */
    public ValidationFailure under(String parent) {
        return new ValidationFailure(join(parent, property), value, reason);
    }

    /** Joins a parent property path and a child: {@code a.b} + {@code c}, {@code a} + {@code [0]}. */
    public static String join(String parent, String child) {
        if (parent == null || parent.isEmpty()) {
            return child;
        }
        if (child.isEmpty()) {
            return parent;
        }
        return child.startsWith("[") ? parent + child : parent + "." + child;
    }

    @Override
    public String toString() {
        return message();
    }
}
