package dev.kgpu.discovery.publish;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** Turns fabric8's exceptions into {@link PublishException}s that say what was being done. */
final class KubernetesErrors {

    private KubernetesErrors() {
    }

    static PublishException translate(String what, KubernetesClientException e) {
        // fabric8 reports transport failures with code 0 (or -1) and the cause attached
        if (e.getCode() > 0) {
            String detail = e.getStatus() != null ? e.getStatus().getMessage() : null;
            return new PublishException.ApiRefused(what, e.getCode(), detail, e);
        }
        return new PublishException.ApiUnreachable(what, e.getCause() != null ? e.getCause() : e);
    }
}
