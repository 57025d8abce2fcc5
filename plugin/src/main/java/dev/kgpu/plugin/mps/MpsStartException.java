package dev.kgpu.plugin.mps;

/**
 * A control daemon could not be started on this node now (the MPS root not writable, the control program missing, a
 * GPU whose compute mode forbids MPS or cannot be set, the daemon refusing to start); what was started is stopped
 * again and the start is retried with backoff. The message says why in one line, naming the thing and its value.
 */
public final class MpsStartException extends RuntimeException {

    public MpsStartException(String message) {
        super(message);
    }
}
