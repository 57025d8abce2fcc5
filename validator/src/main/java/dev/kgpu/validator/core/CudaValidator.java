package dev.kgpu.validator.core;

import dev.kgpu.config.v1.MigStrategy;

import java.util.Optional;

/**
 * {@code cuda}: a pod requesting one GPU runs the CUDA vectorAdd sample on this node to {@code Test PASSED}.
 * The GPU resource is the one the node offers ({@link NodeResources#sampleResource}), {@code nvidia.com/gpu}
 * when the node cannot be read or offers none (the pod then stays Pending and the verdict says so).
 */
public final class CudaValidator implements ComponentValidator {

    public static final String GENERATE_NAME = "nvidia-cuda-validator-";
    public static final String APP_LABEL = "nvidia-cuda-validator";
    public static final String CONTAINER = "cuda-validation";

    private final Cluster cluster;
    private final String nodeName;
    private final String namespace;
    private final SamplePodRunner runner;
    private final SamplePod samplePod;
    private final MigStrategy migStrategy;

    public CudaValidator(Cluster cluster, String nodeName, String namespace, SamplePodRunner runner,
                         SamplePod samplePod, MigStrategy migStrategy) {
        this.cluster = cluster;
        this.nodeName = nodeName;
        this.namespace = namespace;
        this.runner = runner;
        this.samplePod = samplePod;
        this.migStrategy = migStrategy;
    }

    @Override
    public Component component() {
        return Component.CUDA;
    }

    @Override
    public Evidence validate() throws InterruptedException {
        String resource = resource();
        return Evidence.of(runner.run(samplePod.request(namespace, GENERATE_NAME, APP_LABEL, nodeName, CONTAINER,
                new GpuRequest.ExtendedResource(resource))));
    }

    private String resource() {
        Optional<NodeResources> node;
        try {
            node = cluster.node(nodeName);
        } catch (ClusterException e) {
            if (!e.isTransient()) {
                throw SamplePodRunner.apiFailure("read node " + nodeName, e);
            }
            node = Optional.empty();
        }
        return node.flatMap(n -> n.sampleResource(migStrategy)).orElse(NodeResources.GPU);
    }
}
