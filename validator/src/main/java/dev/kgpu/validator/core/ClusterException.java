package dev.kgpu.validator.core;

/**
 * The Kubernetes API server refused or failed a request.
 *
 * @see #code()
 */
public final class ClusterException extends RuntimeException {

    private final int code;

    /**
     * @param code    the HTTP status the API server answered, or 0 when no answer came (connection refused,
     *                timeout)
     * @param message what was asked and what the server said
     */
    public ClusterException(int code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public ClusterException(int code, String message) {
        this(code, message, null);
    }

    public int code() {
        return code;
    }

    /** Worth retrying: no answer, 429 Too Many Requests or a 5xx. A 403 or 422 will not fix itself. */
    public boolean isTransient() {
        return code == 0 || code == 429 || code >= 500;
    }
}
