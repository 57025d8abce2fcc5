package dev.kgpu.discovery.publish;

import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.settings.LabelSinkKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Publishes the labels as NFD's {@code nfd.k8s-sigs.io/v1alpha1} NodeFeature
 * {@code nvidia-features-for-<node>} in the agent's namespace, as GFD does by default since v0.19:
 * metadata label {@value #NODE_NAME_LABEL}{@code =<node>}, the labels in {@code spec.labels}. NFD's
 * master then puts them on the Node.
 *
 * <p>The object is created when missing and otherwise gets its whole {@code spec.labels} replaced by a
 * JSON patch (the object is this agent's alone); nothing is written when the labels are unchanged.
 */
public final class NodeFeatureSink implements LabelSink {

    public static final String API_VERSION = "nfd.k8s-sigs.io/v1alpha1";
    public static final String KIND = "NodeFeature";
    public static final String NODE_NAME_LABEL = "nfd.node.kubernetes.io/node-name";
    static final String NAME_PREFIX = "nvidia-features-for-";

    private final KubernetesClient client;
    private final String nodeName;
    private final String namespace;
    private final String objectName;
    private final Optional<OwnerReference> owner;

    /**
     * @param owner the DaemonSet that owns this agent's pod, so that deleting the DaemonSet garbage-collects
     *              the NodeFeature (GFD also names the pod; kgpu does not, so a restarted pod changes nothing)
     */
    public NodeFeatureSink(KubernetesClient client, String nodeName, String namespace, Optional<OwnerReference> owner) {
        this.client = Objects.requireNonNull(client, "client");
        this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.objectName = objectName(nodeName);
    }

    /** {@code nvidia-features-for-<node>}. */
    public static String objectName(String nodeName) {
        return NAME_PREFIX + nodeName;
    }

    @Override
    public String name() {
        return LabelSinkKind.NODE_FEATURE.wireName();
    }

    @Override
    public Outcome publish(Labels labels) throws PublishException {
        String what = "publishing NodeFeature " + namespace + "/" + objectName;
        try {
            GenericKubernetesResource current = object().get();
            if (current == null) {
                object().create(newObject(labels));
                return Outcome.WROTE;
            }
            Labels published = Labels.of(specLabels(current));
            Map<String, String> metadataLabels = current.getMetadata().getLabels();
            boolean nodeLabelled = metadataLabels != null && nodeName.equals(metadataLabels.get(NODE_NAME_LABEL));
            if (published.sameIgnoringTimestamp(labels) && nodeLabelled) {
                return Outcome.UNCHANGED;
            }
            JsonPatch patch = new JsonPatch();
            if (metadataLabels == null) {
                patch.set("/metadata/labels", Map.of(NODE_NAME_LABEL, nodeName));
            } else if (!nodeLabelled) {
                patch.put("/metadata/labels", NODE_NAME_LABEL, nodeName);
            }
            patch.set("/spec/labels", labels.asMap());
            object().patch(PatchContext.of(PatchType.JSON), patch.toString());
            return Outcome.WROTE;
        } catch (KubernetesClientException e) {
            throw PublishException.fromApi(what, e);
        }
    }

    private Resource<GenericKubernetesResource> object() {
        return client.genericKubernetesResources(API_VERSION, KIND).inNamespace(namespace).withName(objectName);
    }

    private GenericKubernetesResource newObject(Labels labels) {
        Map<String, Object> features = new LinkedHashMap<>();
        features.put("flags", Map.of());
        features.put("attributes", Map.of());
        features.put("instances", Map.of());
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("features", features);
        spec.put("labels", new LinkedHashMap<>(labels.asMap()));
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(API_VERSION)
                .withKind(KIND)
                .withNewMetadata()
                .withName(objectName)
                .withNamespace(namespace)
                .addToLabels(NODE_NAME_LABEL, nodeName)
                .withOwnerReferences(owner.map(List::of).orElse(List.of()))
                .endMetadata()
                .addToAdditionalProperties("spec", spec)
                .build();
    }

    /** {@code spec.labels} of a NodeFeature, or none when the object has none. */
    static Map<String, String> specLabels(GenericKubernetesResource object) {
        if (!(object.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec)
                || !(spec.get("labels") instanceof Map<?, ?> labels)) {
            return Map.of();
        }
        Map<String, String> result = new LinkedHashMap<>();
        labels.forEach((key, value) -> result.put(String.valueOf(key), value == null ? "" : String.valueOf(value)));
        return result;
    }
}
