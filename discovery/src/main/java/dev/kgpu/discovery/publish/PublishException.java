package dev.kgpu.discovery.publish;

import dev.kgpu.agent.kubernetes.KubernetesError;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * A sink could not publish. The supervisor keeps the labels published before and retries with backoff.
 */
public abstract sealed class PublishException extends Exception {

    PublishException(String message, Throwable cause) {
        super(message, cause);
    }

    /** fabric8's failure while doing {@code what}: refused with a status, or no answer ({@link KubernetesError}). */
    static PublishException fromApi(String what, KubernetesClientException e) {
        return switch (KubernetesError.of(e)) {
            case KubernetesError.Refused(int code, String detail) -> new ApiRefused(what, code, detail, e);
            case KubernetesError.Unreachable unreachable -> new ApiUnreachable(what, unreachable.cause());
        };
    }

    /**
     * The API server answered with an error status; {@link #code()} tells 409 (a concurrent change) and
     * 5xx (the server is unwell) from 403 or 404 (RBAC, a missing Node or CRD).
     */
    public static final class ApiRefused extends PublishException {
        private final int code;

        ApiRefused(String what, int code, String detail, Throwable cause) {
            super(what + ": the API server answered " + code + (detail == null || detail.isBlank() ? "" : " (" + detail + ")"), cause);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    /** The API server could not be reached at all. */
    public static final class ApiUnreachable extends PublishException {
        ApiUnreachable(String what, Throwable cause) {
            super(what + ": the API server could not be reached (" + cause.getMessage() + ")", cause);
        }
    }

    /** The feature file could not be read or written. */
    public static final class FileFailed extends PublishException {
        FileFailed(String what, Throwable cause) {
            super(what + " (" + cause + ")", cause);
        }

        /** Refused before anything was written, for {@code reason}. */
        FileFailed(String reason) {
            super(reason, null);
        }
    }
}
