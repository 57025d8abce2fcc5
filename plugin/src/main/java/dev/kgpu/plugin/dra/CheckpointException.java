package dev.kgpu.plugin.dra;

/** The checkpoint of prepared claims could not be written; the message names the file and why. */
public final class CheckpointException extends Exception {

    public CheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
