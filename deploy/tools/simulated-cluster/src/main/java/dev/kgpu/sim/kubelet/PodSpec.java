package dev.kgpu.sim.kubelet;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The part of a pod the device manager reads: its containers' extended-resource limits. */
public record PodSpec(String name, List<Container> containers) {

    public PodSpec {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("pod name was '" + name + "' but it must not be blank");
        }
        containers = List.copyOf(containers);
        if (containers.isEmpty()) {
            throw new IllegalArgumentException("pod '" + name + "' has no containers");
        }
    }

    /** A pod with one container named {@code main} asking for {@code count} of {@code resource}. */
    public static PodSpec of(String name, String resource, long count) {
        return new PodSpec(name, List.of(new Container("main", Map.of(resource, count))));
    }

    /** Sum of every container's limit per resource, in container order. */
    public Map<String, Long> totalLimits() {
        Map<String, Long> totals = new LinkedHashMap<>();
        containers.forEach(c -> c.limits().forEach((r, n) -> totals.merge(r, n, Long::sum)));
        return totals;
    }

    /** A container and its {@code resources.limits} for extended resources. */
    public record Container(String name, Map<String, Long> limits) {
        public Container {
            limits = Map.copyOf(limits);
            limits.forEach((resource, count) -> {
                if (count <= 0) {
                    throw new IllegalArgumentException("limit of " + resource + " was '" + count + "' but it must be positive");
                }
            });
        }
    }
}
