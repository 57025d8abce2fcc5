package dev.kgpu.plugin.node;

/**
 * This node cannot be served as configured, e.g. MIG devices that are not identical under {@code migStrategy: single}.
 * The message says why in one line, naming the setting.
 */
public class UnservableException extends RuntimeException {

    public UnservableException(String message) {
        super(message);
    }
}
