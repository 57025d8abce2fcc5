package dev.kgpu.agent.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClientException;

import java.util.Objects;

/**
 * What a failed call to the Kubernetes API server means, read once from fabric8's exception: the server answered
 * with an error status ({@link Refused}: 409 a concurrent change, 429 or 5xx worth retrying, 403 or 404 RBAC or
 * something missing), or no answer came ({@link Unreachable}: connection refused, a timeout). Every agent that talks
 * to the API server words its failures through this one type.
 *
 * <pre>{@code
 * } catch (KubernetesClientException e) {
 *     switch (KubernetesError.of(e)) {
 *         case KubernetesError.Refused refused when refused.code() == 409 -> retry();
 *         case KubernetesError failure -> throw new SliceStoreException("ResourceSlices: " + failure.describe(), e);
 *     }
 * }
 * }</pre>
 *
 * <p>fabric8's client is an optional dependency of the agent kit: only agents that talk to the API server have it,
 * and only they load this class. Immutable.
 */
public sealed interface KubernetesError {

    /** The HTTP status the API server answered, or 0 when no answer came. */
    int code();

    /** One line: {@code the API server answered 409: <its message>} or {@code the API server could not be reached: <why>}. */
    String describe();

    /** Worth retrying: no answer, 429 Too Many Requests or a 5xx. A 403 or 422 will not fix itself. */
    default boolean isTransient() {
        return code() == 0 || code() == 429 || code() >= 500;
    }

    /**
     * The API server answered with an error status.
     *
     * @param code   the HTTP status, positive
     * @param detail the first line of the server's message (its Status object's), else of fabric8's; may be empty
     */
    record Refused(int code, String detail) implements KubernetesError {
        public Refused {
            Objects.requireNonNull(detail, "detail");
        }

        @Override
        public String describe() {
            return "the API server answered " + code + (detail.isEmpty() ? "" : ": " + detail);
        }
    }

    /**
     * No answer came from the API server.
     *
     * @param cause  why (the transport's exception, else fabric8's own)
     * @param detail the first line of the cause's message
     */
    record Unreachable(Throwable cause, String detail) implements KubernetesError {
        public Unreachable {
            Objects.requireNonNull(cause, "cause");
            Objects.requireNonNull(detail, "detail");
        }

        @Override
        public int code() {
            return 0;
        }

        @Override
        public String describe() {
            return "the API server could not be reached: " + detail;
        }
    }

    /** What {@code e} means: fabric8 reports a transport failure with code 0 (or -1) and its cause attached. */
    static KubernetesError of(KubernetesClientException e) {
        if (e.getCode() > 0) {
            String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                    : e.getMessage();
            return new Refused(e.getCode(), firstLine(message));
        }
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return new Unreachable(cause, firstLine(String.valueOf(cause.getMessage())));
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
