package dev.kgpu.discovery.publish;

import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.settings.LabelSinkKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Publishes the labels straight onto the Node object.
 *
 * <p>It owns only the {@code nvidia.com/} labels it set itself, and remembers which those are in the
 * Node annotation {@value #OWNED_ANNOTATION} (a comma-separated list of keys), so that a restarted agent
 * still removes a label that no longer holds. Every other label, {@code nvidia.com/} ones set by
 * someone else included, is never touched.
 *
 * <p>Writes are JSON patches that name only the owned keys that change and carry no
 * {@code resourceVersion}: they cannot conflict with, or overwrite, labels that others change at the
 * same time.
 *
 * <p>The Node is read and patched as a generic resource: only its metadata is bound to Java types, so the
 * client never builds deserializers for the Node's spec and status (a tenth of a second of the first pass,
 * measured on the simulated node).
 */
public final class NodeLabelSink implements LabelSink {

    /** The Node annotation listing the label keys this agent set. */
    public static final String OWNED_ANNOTATION = "kgpu.dev/discovery-labels";

    static final String OWNED_PREFIX = "nvidia.com/";

    private static final ResourceDefinitionContext NODES = new ResourceDefinitionContext.Builder()
            .withGroup("").withVersion("v1").withKind("Node").withPlural("nodes").withNamespaced(false).build();

    private final KubernetesClient client;
    private final String nodeName;

    public NodeLabelSink(KubernetesClient client, String nodeName) {
        this.client = Objects.requireNonNull(client, "client");
        this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    }

    @Override
    public String name() {
        return LabelSinkKind.NODE.wireName();
    }

    @Override
    public Outcome publish(Labels labels) throws PublishException {
        for (String key : labels.asMap().keySet()) {
            if (!key.startsWith(OWNED_PREFIX)) {
                throw new IllegalArgumentException("label key was '" + key + "' but the node sink only sets " + OWNED_PREFIX + " labels");
            }
        }
        ObjectMeta metadata = readMetadata();
        Map<String, String> current = metadata.getLabels() == null ? Map.of() : metadata.getLabels();
        Set<String> owned = ownedKeys(metadata);

        Map<String, String> published = new TreeMap<>();
        for (String key : owned) {
            if (current.containsKey(key)) {
                published.put(key, current.get(key));
            }
        }
        for (String key : labels.asMap().keySet()) {
            if (current.containsKey(key)) {
                published.put(key, current.get(key));
            }
        }
        String wantedAnnotation = String.join(",", labels.asMap().keySet());
        if (Labels.of(published).sameIgnoringTimestamp(labels) && wantedAnnotation.equals(annotation(metadata))) {
            return Outcome.UNCHANGED;
        }

        JsonPatch patch = new JsonPatch();
        if (metadata.getLabels() == null) {
            patch.set("/metadata/labels", labels.asMap());
        } else {
            labels.asMap().forEach((key, value) -> {
                if (!value.equals(current.get(key))) {
                    patch.put("/metadata/labels", key, value);
                }
            });
            for (String key : owned) {
                if (!labels.containsKey(key) && current.containsKey(key)) {
                    patch.remove("/metadata/labels", key);
                }
            }
        }
        if (metadata.getAnnotations() == null) {
            patch.set("/metadata/annotations", Map.of(OWNED_ANNOTATION, wantedAnnotation));
        } else {
            patch.put("/metadata/annotations", OWNED_ANNOTATION, wantedAnnotation);
        }
        try {
            theNode().patch(PatchContext.of(PatchType.JSON), patch.toString());
        } catch (KubernetesClientException e) {
            throw PublishException.fromApi("patching the labels of Node " + nodeName, e);
        }
        return Outcome.WROTE;
    }

    private Resource<GenericKubernetesResource> theNode() {
        return client.genericKubernetesResources(NODES).withName(nodeName);
    }

    private ObjectMeta readMetadata() throws PublishException {
        GenericKubernetesResource node;
        try {
            node = theNode().get();
        } catch (KubernetesClientException e) {
            throw PublishException.fromApi("reading Node " + nodeName, e);
        }
        if (node == null || node.getMetadata() == null) {
            throw new PublishException.ApiRefused("reading Node " + nodeName, 404, "no such Node; NODE_NAME must name this node", null);
        }
        return node.getMetadata();
    }

    private static String annotation(ObjectMeta metadata) {
        Map<String, String> annotations = metadata.getAnnotations();
        return annotations == null ? null : annotations.get(OWNED_ANNOTATION);
    }

    /** The keys the annotation lists, limited to {@code nvidia.com/} so that a tampered annotation cannot make us remove foreign labels. */
    static Set<String> ownedKeys(ObjectMeta metadata) {
        String value = annotation(metadata);
        if (value == null || value.isBlank()) {
            return Set.of();
        }
        return Arrays.stream(value.split(","))
                .map(String::trim)
                .filter(key -> key.startsWith(OWNED_PREFIX))
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
