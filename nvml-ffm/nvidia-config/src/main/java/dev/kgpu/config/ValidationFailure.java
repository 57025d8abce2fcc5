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

    /**
     * {@code <property> was '<value>' but it <reason>}, always one line: a line break or other control
     * character in the property or the value is shown escaped (a line break as backslash-n), and a long
     * value is cut.
     */
    public String message() {
        String shown = value == null ? "null" : value;
        if (shown.length() > MAX_VALUE_LENGTH) {
            shown = shown.substring(0, MAX_VALUE_LENGTH) + "...";
        }
        return oneLine(property) + " was '" + oneLine(shown) + "' but it " + oneLine(reason);
    }

    /** {@code text} with its control characters escaped, so it prints on one line. */
    static String oneLine(String text) {
        if (text.chars().noneMatch(c -> Character.isISOControl(c) || c == '\u2028' || c == '\u2029')) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
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
