package dev.kgpu.exporter.counters;

/** A counters file could not be read or has a bad row; the message names the file, line and content. */
public final class CountersException extends RuntimeException {

    public CountersException(String message) {
        super(message);
    }

    public CountersException(String message, Throwable cause) {
        super(message, cause);
    }
}
