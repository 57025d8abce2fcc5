package dev.kgpu.sim.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A list's {@code fieldSelector} ({@code spec.nodeName=n,status.phase!=Failed}), which fabric8's CRUD server does not
 * evaluate (it answers an empty list). {@code kubectl describe node} lists the node's pods this way,
 * {@code kubectl describe pod} its events, and a DRA driver its node's ResourceSlices ({@code spec.nodeName},
 * {@code spec.driver}). Requirements are {@code =}, {@code ==} or {@code !=} on a dotted field path; a missing field
 * reads as the empty string, as in Kubernetes. Used by {@link TestApiServer} and the simulated node's API server.
 */
public final class FieldSelector {

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Requirement(List<String> path, boolean equal, String value) {
        boolean matches(JsonNode item) {
            JsonNode node = item;
            for (String part : path) {
                node = node.path(part);
            }
            String actual = node.isValueNode() ? node.asText() : "";
            return equal == actual.equals(value);
        }
    }

    private final List<Requirement> requirements;

    private FieldSelector(List<Requirement> requirements) {
        this.requirements = requirements;
    }

    /** Parses {@code selector}, or empty when it is not one this class understands. */
    public static Optional<FieldSelector> parse(String selector) {
        List<Requirement> requirements = new ArrayList<>();
        for (String term : selector.split(",")) {
            String trimmed = term.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            int notEqual = trimmed.indexOf("!=");
            int equal = trimmed.indexOf('=');
            if (notEqual > 0) {
                requirements.add(new Requirement(List.of(trimmed.substring(0, notEqual).strip().split("\\.")), false,
                        trimmed.substring(notEqual + 2).strip()));
            } else if (equal > 0) {
                String value = trimmed.substring(equal + 1);
                if (value.startsWith("=")) {
                    value = value.substring(1);
                }
                requirements.add(new Requirement(List.of(trimmed.substring(0, equal).strip().split("\\.")), true,
                        value.strip()));
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(new FieldSelector(requirements));
    }

    /** The list {@code body} with only the items that match, or empty when {@code body} is no list. */
    public Optional<String> filter(String body) {
        try {
            JsonNode tree = JSON.readTree(body);
            if (!tree.isObject() || !tree.path("kind").asText().endsWith("List") || !tree.path("items").isArray()) {
                return Optional.empty();
            }
            ArrayNode kept = JSON.createArrayNode();
            for (JsonNode item : tree.path("items")) {
                if (requirements.stream().allMatch(r -> r.matches(item))) {
                    kept.add(item);
                }
            }
            ((ObjectNode) tree).set("items", kept);
            return Optional.of(JSON.writeValueAsString(tree));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }
}
