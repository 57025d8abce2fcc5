package dev.kgpu.plugin.dra.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** fabric8's exceptions in one line: the HTTP status and the API server's message, or why it could not be reached. */
final class KubernetesErrors {

    private KubernetesErrors() {
    }

    static String describe(KubernetesClientException e) {
        if (e.getCode() > 0) {
            String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
            return "the API server answered " + e.getCode() + ": " + firstLine(message);
        }
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return "the API server could not be reached: " + firstLine(String.valueOf(cause.getMessage()));
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
