package dev.kgpu.config.v1;

import java.util.Optional;

/**
 * Go's {@code strconv.ParseBool}, which NVIDIA's flag library uses for boolean flags and environment
 * variables: {@code 1 t T TRUE true True} and {@code 0 f F FALSE false False}; nothing else.
 */
final class GoBool {

    static final String ACCEPTED = "1, t, T, TRUE, true, True, 0, f, F, FALSE, false or False";

    private GoBool() {
    }

    static Optional<Boolean> parse(String text) {
        return switch (text) {
            case "1", "t", "T", "TRUE", "true", "True" -> Optional.of(true);
            case "0", "f", "F", "FALSE", "false", "False" -> Optional.of(false);
            default -> Optional.empty();
        };
    }
}
