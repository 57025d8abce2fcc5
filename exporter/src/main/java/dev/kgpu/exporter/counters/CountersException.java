package dev.kgpu.exporter.counters;

import dev.kgpu.config.ValidationFailure;

/**
 * A counters file could not be read or has a bad row. The failure names the file and line, the row as
 * written, and what is wrong with it: {@code counters file 'my.csv' line 3 was 'DCGM_FI_DEV_SM_CLOCK, gauge'
 * but it has 2 fields ...}; the exporter reports it with its other settings.
 */
public final class CountersException extends RuntimeException {

    private final ValidationFailure failure;
    private final boolean unreadable;

    public CountersException(ValidationFailure failure) {
        this(failure, false, null);
    }

    public CountersException(ValidationFailure failure, Throwable cause) {
        this(failure, false, cause);
    }

    private CountersException(ValidationFailure failure, boolean unreadable, Throwable cause) {
        super(failure.message(), cause);
        this.failure = failure;
        this.unreadable = unreadable;
    }

    /** The file at {@code path} could not be read as a whole; {@code reason} follows "but it". */
    static CountersException unreadable(java.nio.file.Path path, String reason, Throwable cause) {
        return new CountersException(new ValidationFailure("counters file", path.toString(), reason), true, cause);
    }

    /** Whether the file itself could not be read (missing, too large, not UTF-8), rather than a row being bad. */
    public boolean unreadable() {
        return unreadable;
    }

    public ValidationFailure failure() {
        return failure;
    }
}
