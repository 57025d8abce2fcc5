package dev.kgpu.validator.config;

/** How the validator runs. */
public enum Mode {
    /** Validate once and exit: 0 when every component passed (an init container). */
    ONESHOT,
    /** Validate now and every revalidation interval; readiness says whether all passed. */
    DAEMON
}
