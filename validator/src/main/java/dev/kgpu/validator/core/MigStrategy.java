package dev.kgpu.validator.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** The device plugin's {@code MIG_STRATEGY}: how MIG devices appear as node resources. */
public enum MigStrategy {
    NONE, SINGLE, MIXED;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<MigStrategy> byId(String id) {
        return Arrays.stream(values()).filter(s -> s.id().equals(id.trim().toLowerCase(Locale.ROOT))).findFirst();
    }
}
