package dev.kgpu.validator.core;

import dev.kgpu.config.v1.MigStrategy;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A node as the validator reads it: its extended resources as the kubelet publishes them in
 * {@code status.capacity} and {@code status.allocatable}, in whole units, and its labels.
 */
public record NodeResources(String name, Map<String, Long> capacity, Map<String, Long> allocatable,
                            Map<String, String> labels) {

    /** The device plugin's full-GPU resource. */
    public static final String GPU = "nvidia.com/gpu";
    /** Prefix of the device plugin's MIG resources under the mixed strategy, e.g. {@code nvidia.com/mig-1g.10gb}. */
    public static final String MIG_PREFIX = "nvidia.com/mig-";

    public NodeResources {
        Objects.requireNonNull(name, "name");
        capacity = Map.copyOf(capacity);
        allocatable = Map.copyOf(allocatable);
        labels = Map.copyOf(labels);
    }

    /** A node without labels. */
    public NodeResources(String name, Map<String, Long> capacity, Map<String, Long> allocatable) {
        this(name, capacity, allocatable, Map.of());
    }

    /** Whether a resource is an NVIDIA GPU resource ({@code nvidia.com/gpu*} or {@code nvidia.com/mig-*}). */
    public static boolean isGpuResource(String resource) {
        return resource.startsWith(GPU) || resource.startsWith(MIG_PREFIX);
    }

    /** The GPU resources with capacity above zero, sorted by name. */
    public Map<String, Long> gpuCapacity() {
        return gpuOnly(capacity);
    }

    /** The GPU resources with allocatable above zero, sorted by name. */
    public Map<String, Long> gpuAllocatable() {
        return gpuOnly(allocatable);
    }

    /**
     * The resource a sample pod should request: with the {@code mixed} MIG strategy a MIG resource when
     * the node has one (NVIDIA prefers MIG), otherwise {@code nvidia.com/gpu}, otherwise any other
     * {@code nvidia.com/gpu*} resource (e.g. a shared one); empty when nothing is allocatable.
     */
    public Optional<String> sampleResource(MigStrategy strategy) {
        Map<String, Long> allocatableGpus = gpuAllocatable();
        if (strategy == MigStrategy.MIXED) {
            Optional<String> mig = allocatableGpus.keySet().stream().filter(r -> r.startsWith(MIG_PREFIX)).findFirst();
            if (mig.isPresent()) {
                return mig;
            }
        }
        if (allocatableGpus.containsKey(GPU)) {
            return Optional.of(GPU);
        }
        return allocatableGpus.keySet().stream().filter(r -> r.startsWith(GPU)).findFirst()
                .or(() -> allocatableGpus.keySet().stream().findFirst());
    }

    private static Map<String, Long> gpuOnly(Map<String, Long> resources) {
        Map<String, Long> result = new TreeMap<>();
        resources.forEach((name, amount) -> {
            if (isGpuResource(name) && amount > 0) {
                result.put(name, amount);
            }
        });
        return result;
    }
}
