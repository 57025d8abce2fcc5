package dev.kgpu.sim.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The API discovery documents the simulated API server serves so that {@code kubectl} can resolve
 * {@code nodes}, {@code pods}, {@code events} ... (the CRUD server answers discovery with empty lists): the core
 * group, which the agents use (discovery's {@code node} sink, the validator's pods and events), and
 * {@code resource.k8s.io/v1} (DeviceClasses, ResourceClaims and their templates, ResourceSlices), which the plugin's
 * DRA driver and users of {@code --dra} use.
 */
final class ApiDiscovery {

    private ApiDiscovery() {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ALL_VERBS = List.of("create", "delete", "deletecollection", "get", "list",
            "patch", "update", "watch");
    private static final List<String> SUBRESOURCE_VERBS = List.of("get", "patch", "update");

    private record Resource(String name, String singular, boolean namespaced, String kind, List<String> verbs,
                            List<String> shortNames) {
        String json() {
            return """
                    {"name":"%s","singularName":"%s","namespaced":%s,"kind":"%s","verbs":%s%s}"""
                    .formatted(name, singular, namespaced, kind, array(verbs),
                            shortNames.isEmpty() ? "" : ",\"shortNames\":" + array(shortNames));
        }
    }

    private static final List<Resource> CORE_V1 = List.of(
            new Resource("namespaces", "namespace", false, "Namespace", ALL_VERBS, List.of("ns")),
            new Resource("namespaces/status", "", false, "Namespace", SUBRESOURCE_VERBS, List.of()),
            new Resource("nodes", "node", false, "Node", ALL_VERBS, List.of("no")),
            new Resource("nodes/status", "", false, "Node", SUBRESOURCE_VERBS, List.of()),
            new Resource("pods", "pod", true, "Pod", ALL_VERBS, List.of("po")),
            new Resource("pods/status", "", true, "Pod", SUBRESOURCE_VERBS, List.of()),
            new Resource("pods/log", "", true, "Pod", List.of("get"), List.of()),
            new Resource("events", "event", true, "Event", ALL_VERBS, List.of("ev")),
            new Resource("configmaps", "configmap", true, "ConfigMap", ALL_VERBS, List.of("cm")),
            new Resource("secrets", "secret", true, "Secret", ALL_VERBS, List.of()),
            new Resource("serviceaccounts", "serviceaccount", true, "ServiceAccount", ALL_VERBS, List.of("sa")),
            new Resource("services", "service", true, "Service", ALL_VERBS, List.of("svc")));

    static final String API_VERSIONS = """
            {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}""";

    static final String CORE_V1_RESOURCES = """
            {"kind":"APIResourceList","groupVersion":"v1","resources":[%s]}"""
            .formatted(CORE_V1.stream().map(Resource::json).collect(Collectors.joining(",")));

    /** Dynamic resource allocation: what the plugin's DRA driver publishes and reads, and what users claim with. */
    static final String RESOURCE_GROUP_VERSION = "resource.k8s.io/v1";

    private static final List<Resource> RESOURCE_V1 = List.of(
            new Resource("deviceclasses", "deviceclass", false, "DeviceClass", ALL_VERBS, List.of()),
            new Resource("resourceclaims", "resourceclaim", true, "ResourceClaim", ALL_VERBS, List.of()),
            new Resource("resourceclaims/status", "", true, "ResourceClaim", SUBRESOURCE_VERBS, List.of()),
            new Resource("resourceclaimtemplates", "resourceclaimtemplate", true, "ResourceClaimTemplate", ALL_VERBS, List.of()),
            new Resource("resourceslices", "resourceslice", false, "ResourceSlice", ALL_VERBS, List.of()));

    static final String API_GROUPS = """
            {"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"resource.k8s.io","versions":[\
            {"groupVersion":"resource.k8s.io/v1","version":"v1"}],"preferredVersion":\
            {"groupVersion":"resource.k8s.io/v1","version":"v1"}}]}""";

    static final String RESOURCE_V1_RESOURCES = """
            {"kind":"APIResourceList","groupVersion":"resource.k8s.io/v1","resources":[%s]}"""
            .formatted(RESOURCE_V1.stream().map(Resource::json).collect(Collectors.joining(",")));

    private static final Pattern CORE_COLLECTION =
            Pattern.compile("^/api/v1/(?:namespaces/[^/]+/)?([a-z]+)$");

    /**
     * The CRUD server calls every collection a {@code List}; clients that decode typed lists (kubectl describe
     * decodes a {@code PodList}) need the resource's own list kind, e.g. {@code PodList}.
     */
    static MockResponse typedList(String path, MockResponse response) {
        Matcher collection = CORE_COLLECTION.matcher(path);
        if (!collection.matches() || response.code() != 200 || response.getBody() == null) {
            return response;
        }
        String kind = CORE_V1.stream().filter(r -> r.name().equals(collection.group(1))).map(Resource::kind)
                .findFirst().orElse(null);
        if (kind == null) {
            return response;
        }
        String body = new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
        try {
            JsonNode tree = JSON.readTree(body);
            if (!tree.isObject() || !"List".equals(tree.path("kind").asText())) {
                return response;
            }
            ((ObjectNode) tree).put("kind", kind + "List");
            return new MockResponse().setResponseCode(200)
                    .setHeader("Content-Type", "application/json").setBody(JSON.writeValueAsString(tree));
        } catch (JsonProcessingException e) {
            return response;
        }
    }

    /** A 404 Status for {@code path}. */
    static String notFound(String path) {
        return """
                {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%s,"reason":"NotFound","code":404}"""
                .formatted(quote("the simulated API server does not serve " + path));
    }

    private static String array(List<String> values) {
        return values.stream().map(ApiDiscovery::quote).collect(Collectors.joining(",", "[", "]"));
    }

    /** A JSON string literal. */
    static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
