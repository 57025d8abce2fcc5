package dev.kgpu.exporter.counters;

import dev.kgpu.config.ValidationFailure;

/**
 * A counters file could not be read or has a bad row. The failure names the file and line, the row as
 * written, and what is wrong with it: {@code counters file 'my.csv' line 3 was 'DCGM_FI_DEV_SM_CLOCK, gauge'
 * but it has 2 fields ...}; the exporter reports it with its other settings.
 */
public final class CountersException extends RuntimeException {

    private final ValidationFailure failure;

    public CountersException(ValidationFailure failure) {
        super(failure.message());
        this.failure = failure;
    }

    public CountersException(ValidationFailure failure, Throwable cause) {
        super(failure.message(), cause);
        this.failure = failure;
    }

    public ValidationFailure failure() {
        return failure;
    }
}
