package dev.kgpu.sim.scheduler;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The extended resources (such as {@code nvidia.com/gpu}) a pod's containers ask for: their limits, else their
 * requests, as whole numbers.
 */
public final class ExtendedResources {

    private ExtendedResources() {
    }

    /**
     * Each container's extended resources, by container name, in the pod's order.
     *
     * @throws IllegalArgumentException naming the container, resource and value, when one is not a positive whole number
     */
    public static Map<String, Map<String, Long>> byContainer(Pod pod) {
        Map<String, Map<String, Long>> containers = new LinkedHashMap<>();
        for (Container container : pod.getSpec().getContainers()) {
            Map<String, Quantity> declared = new LinkedHashMap<>();
            var resources = container.getResources();
            if (resources != null && resources.getRequests() != null) {
                declared.putAll(resources.getRequests());
            }
            if (resources != null && resources.getLimits() != null) {
                declared.putAll(resources.getLimits());
            }
            Map<String, Long> amounts = new LinkedHashMap<>();
            declared.forEach((resource, quantity) -> {
                if (isExtended(resource)) {
                    var amount = quantity.getNumericalAmount();
                    if (amount.signum() <= 0 || amount.stripTrailingZeros().scale() > 0) {
                        throw new IllegalArgumentException("limit of " + resource + " in container " + container.getName()
                                + " was '" + quantity + "' but it must be a positive whole number");
                    }
                    amounts.put(resource, amount.longValueExact());
                }
            });
            containers.put(container.getName(), amounts);
        }
        return containers;
    }

    /** What the whole pod asks for. */
    public static Map<String, Long> total(Pod pod) {
        Map<String, Long> total = new LinkedHashMap<>();
        byContainer(pod).values().forEach(amounts -> amounts.forEach((resource, n) -> total.merge(resource, n, Long::sum)));
        return total;
    }

    /**
     * A name with a domain outside {@code kubernetes.io}, such as {@code nvidia.com/gpu}; cpu, memory and the
     * like have none. (Whether a name is valid at all is the API server's business.)
     */
    static boolean isExtended(String resource) {
        return resource.contains("/") && !resource.contains("kubernetes.io/");
    }
}
