package dev.kgpu.discovery.publish;

import dev.kgpu.discovery.settings.LabelSinkKind;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Chooses and builds the sink: the kind {@code KGPU_LABEL_SINK} names (the configuration has already
 * turned GFD's {@code GFD_USE_NODE_FEATURE_API=false} into {@code file}); for {@code auto}, the NodeFeature
 * when the API server serves NFD's {@code nfd.k8s-sigs.io/v1alpha1} NodeFeature, and the Node otherwise.
 */
public final class SinkFactory {

    private static final System.Logger LOG = System.getLogger(SinkFactory.class.getName());

    private final KubernetesClient client;

    public SinkFactory(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** What {@link #create} needs to know. */
    public record Request(
            LabelSinkKind kind,
            Optional<String> nodeName,
            Optional<String> namespace,
            Optional<String> podName,
            Path outputFile,
            boolean removeOutputFileOnExit) {
    }

    /**
     * Builds the sink. Throws {@link PublishException} when the API server could not be asked whether it
     * serves NodeFeatures (the caller retries), and {@link IllegalArgumentException} when a setting that
     * the chosen sink needs is missing.
     */
    public LabelSink create(Request request) throws PublishException {
        LabelSinkKind kind = choose(request.kind());
        return switch (kind) {
            case FILE -> new FeatureFileSink(request.outputFile(), request.removeOutputFileOnExit());
            case NODE -> new NodeLabelSink(client, required(request.nodeName(), "NODE_NAME", kind));
            case NODE_FEATURE -> {
                String node = required(request.nodeName(), "NODE_NAME", kind);
                String namespace = required(request.namespace(), "NAMESPACE", kind);
                yield new NodeFeatureSink(client, node, namespace, owner(namespace, request.podName()));
            }
            case AUTO -> throw new IllegalStateException("the auto sink kind was not settled");
        };
    }

    private LabelSinkKind choose(LabelSinkKind kind) throws PublishException {
        if (kind != LabelSinkKind.AUTO) {
            return kind;
        }
        boolean served = nodeFeatureServed();
        LOG.log(Level.INFO, "the API server {0} NodeFeature ({1}); publishing labels to the {2}",
                served ? "serves" : "does not serve", NodeFeatureSink.API_VERSION,
                served ? "NodeFeature object" : "Node object");
        return kind.settled(served);
    }

    /** Whether API discovery lists the NodeFeature kind in {@code nfd.k8s-sigs.io/v1alpha1}. */
    public boolean nodeFeatureServed() throws PublishException {
        try {
            APIResourceList resources = client.getApiResources(NodeFeatureSink.API_VERSION);
            if (resources == null || resources.getResources() == null) {
                return false;
            }
            for (APIResource resource : resources.getResources()) {
                if (NodeFeatureSink.KIND.equals(resource.getKind())) {
                    return true;
                }
            }
            return false;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw PublishException.fromApi("asking the API server whether it serves " + NodeFeatureSink.API_VERSION, e);
        }
    }

    private static String required(Optional<String> value, String name, LabelSinkKind kind) {
        return value.filter(v -> !v.isBlank()).orElseThrow(() -> new IllegalArgumentException(
                name + " was '' but the " + kind.wireName() + " sink needs it (set it from the downward API)"));
    }

    /** The DaemonSet owning this pod, so that deleting the DaemonSet garbage-collects the NodeFeature; best effort. */
    private Optional<OwnerReference> owner(String namespace, Optional<String> podName) {
        if (podName.isEmpty() || podName.get().isBlank()) {
            return Optional.empty();
        }
        try {
            Pod pod = client.pods().inNamespace(namespace).withName(podName.get()).get();
            if (pod == null || pod.getMetadata().getOwnerReferences() == null) {
                return Optional.empty();
            }
            return pod.getMetadata().getOwnerReferences().stream()
                    .filter(reference -> "DaemonSet".equals(reference.getKind()))
                    .findFirst()
                    .map(reference -> new OwnerReferenceBuilder()
                            .withApiVersion(reference.getApiVersion())
                            .withKind(reference.getKind())
                            .withName(reference.getName())
                            .withUid(reference.getUid())
                            .withController(true)
                            .build());
        } catch (KubernetesClientException e) {
            LOG.log(Level.WARNING, "the NodeFeature gets no owner: reading pod {0}/{1} failed: {2}",
                    namespace, podName.get(), e.getMessage());
            return Optional.empty();
        }
    }
}
