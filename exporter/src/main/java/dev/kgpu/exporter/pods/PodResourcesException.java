package dev.kgpu.exporter.pods;

/** Asking the kubelet for pod resources failed; each subtype is a failure the caller treats differently. */
public abstract sealed class PodResourcesException extends Exception {

    PodResourcesException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The socket file does not exist (kubelet down or restarting, or the hostPath is not mounted). */
    public static final class SocketMissing extends PodResourcesException {
        public SocketMissing(String message) {
            super(message, null);
        }
    }

    /** The kubelet refused the call: {@code ResourceExhausted "rejected by rate limit"}. */
    public static final class RateLimited extends PodResourcesException {
        public RateLimited(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Nothing answered on the socket, or the call timed out. */
    public static final class Unavailable extends PodResourcesException {
        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Any other failure. */
    public static final class Failed extends PodResourcesException {
        public Failed(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
