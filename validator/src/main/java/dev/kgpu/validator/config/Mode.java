package dev.kgpu.validator.config;

import dev.kgpu.config.v1.WireValue;

/** How the validator runs ({@code KGPU_VALIDATOR_MODE}, {@code --mode}). */
public enum Mode implements WireValue {
    /** Validate once and exit: 0 when every component passed (an init container). */
    ONESHOT("oneshot"),
    /** Validate now and every revalidation interval; readiness says whether all passed. */
    DAEMON("daemon");

    private final String wireName;

    Mode(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    @Override
    public String toString() {
        return wireName;
    }
}
