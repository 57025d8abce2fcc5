package dev.kgpu.simulator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Whether a pod's node selector and required node affinity admit the node. */
final class Placement {

    private Placement() {
    }

    /** Why the node does not fit the pod, in the scheduler's words, or empty when it fits. */
    static Optional<String> excludes(Pod pod, Node node) {
        Map<String, String> labels = node == null || node.getMetadata().getLabels() == null
                ? Map.of() : node.getMetadata().getLabels();
        String name = node == null ? "" : node.getMetadata().getName();
        Map<String, String> selector = pod.getSpec().getNodeSelector();
        if (selector != null && selector.entrySet().stream().anyMatch(e -> !e.getValue().equals(labels.get(e.getKey())))) {
            return Optional.of("node(s) didn't match Pod's node affinity/selector");
        }
        var affinity = pod.getSpec().getAffinity();
        if (affinity == null || affinity.getNodeAffinity() == null
                || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return Optional.empty();
        }
        var terms = affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
        if (terms == null || terms.isEmpty()) {
            return Optional.empty();
        }
        boolean anyTerm = terms.stream().anyMatch(term ->
                Optional.ofNullable(term.getMatchExpressions()).orElse(List.of()).stream()
                        .allMatch(r -> matches(r.getOperator(), labels.get(r.getKey()), labels.containsKey(r.getKey()), r.getValues()))
                && Optional.ofNullable(term.getMatchFields()).orElse(List.of()).stream()
                        .allMatch(r -> "metadata.name".equals(r.getKey())
                                && matches(r.getOperator(), name, true, r.getValues())));
        return anyTerm ? Optional.empty() : Optional.of("node(s) didn't match Pod's node affinity/selector");
    }

    private static boolean matches(String operator, String value, boolean present, List<String> values) {
        Set<String> set = new LinkedHashSet<>(values == null ? List.of() : values);
        return switch (operator) {
            case "In" -> present && set.contains(value);
            case "NotIn" -> !present || !set.contains(value);
            case "Exists" -> present;
            case "DoesNotExist" -> !present;
            case "Gt", "Lt" -> present && set.size() == 1 && compare(operator, value, set.iterator().next());
            default -> false;
        };
    }

    private static boolean compare(String operator, String value, String bound) {
        try {
            long v = Long.parseLong(value);
            long b = Long.parseLong(bound);
            return operator.equals("Gt") ? v > b : v < b;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
