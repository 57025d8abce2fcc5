package dev.kgpu.sim.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * kube-scheduler's NodeAffinity filter: the pod's {@code nodeSelector} and required node affinity must admit
 * the node (the validator pins its sample pods with {@code matchFields} on {@code metadata.name}).
 */
public final class NodeAffinity implements Scheduler {

    static final String MISMATCH = "node(s) didn't match Pod's node affinity/selector";

    @Override
    public Optional<String> filter(Pod pod, Node node, List<Pod> podsOnNode) {
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        Map<String, String> selector = pod.getSpec().getNodeSelector();
        if (selector != null && selector.entrySet().stream().anyMatch(e -> !e.getValue().equals(labels.get(e.getKey())))) {
            return Optional.of(MISMATCH);
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
        return matchesAnyTerm(terms, node) ? Optional.empty() : Optional.of(MISMATCH);
    }

    /**
     * Whether one of {@code terms} admits {@code node}: all of a term's {@code matchExpressions} on its labels and
     * {@code matchFields} on {@code metadata.name} hold. The terms of a required node affinity, and of a DRA
     * allocation's or ResourceSlice's node selector.
     */
    public static boolean matchesAnyTerm(List<NodeSelectorTerm> terms, Node node) {
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        String name = node.getMetadata().getName();
        return terms.stream().anyMatch(term ->
                Optional.ofNullable(term.getMatchExpressions()).orElse(List.of()).stream()
                        .allMatch(r -> matches(r.getOperator(), labels.get(r.getKey()), labels.containsKey(r.getKey()), r.getValues()))
                && Optional.ofNullable(term.getMatchFields()).orElse(List.of()).stream()
                        .allMatch(r -> "metadata.name".equals(r.getKey())
                                && matches(r.getOperator(), name, true, r.getValues())));
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
