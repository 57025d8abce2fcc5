package dev.kgpu.agent.testing;

import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A watch's ERROR event as the API server sends it when the watch's resourceVersion is too old (410 Gone), and how
 * an agent's Kubernetes client reads it. fabric8 relists only when the event's object is read as a
 * {@code Status}: an agent that registers its own list of Kubernetes kinds (application.properties, "Kubernetes model
 * kinds") must keep {@code Status} in it, or its watches and informers retry the expired version for ever.
 */
public final class WatchErrors {

    /** The API server's answer to a watch from an expired resourceVersion. */
    public static final String GONE = """
            {"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",\
            "message":"too old resource version: 1 (2)","reason":"Expired","code":410}}""";

    private WatchErrors() {
    }

    /** The object of {@link #GONE} as {@code client}'s serialization reads a watch event, the way fabric8's watches do. */
    public static Object goneAsReadBy(KubernetesClient client) {
        return client.getKubernetesSerialization().unmarshal(GONE, WatchEvent.class).getObject();
    }
}
