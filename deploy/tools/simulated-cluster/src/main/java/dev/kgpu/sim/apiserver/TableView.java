package dev.kgpu.sim.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Server-side printing of pods, nodes and events ({@code meta.k8s.io/v1} {@code Table}), which {@code kubectl get} asks
 * for: without it kubectl shows only NAME and AGE. The columns are the API server's: pods NAME, READY, STATUS,
 * RESTARTS, AGE (and IP, NODE with {@code -o wide}); nodes NAME, STATUS, ROLES, AGE, VERSION (and INTERNAL-IP,
 * OS-IMAGE, KERNEL-VERSION, CONTAINER-RUNTIME). STATUS follows kubectl's rules (a waiting or terminated
 * container's reason, else the pod's reason, else its phase).
 */
final class TableView {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PODS = Pattern.compile("^/api/v1/(namespaces/[^/]+/)?pods(/[^/]+)?$");
    private static final Pattern NODES = Pattern.compile("^/api/v1/nodes(/[^/]+)?$");
    private static final Pattern EVENTS = Pattern.compile("^/api/v1/(namespaces/[^/]+/)?events(/[^/]+)?$");

    private TableView() {
    }

    /** Whether a GET of {@code path} with this {@code Accept} and query should be answered as a Table. */
    static boolean wanted(String path, String accept, String query) {
        if (accept == null || !accept.contains("as=Table")) {
            return false;
        }
        if (query != null && query.contains("watch=")) {
            return false;
        }
        return PODS.matcher(path).matches() || NODES.matcher(path).matches() || EVENTS.matcher(path).matches();
    }

    /**
     * The Table for the JSON object or list {@code body} (what the CRUD server answered), or empty when it is
     * something else (a Status, say).
     */
    static Optional<String> of(String path, String body, Instant now) {
        JsonNode tree;
        try {
            tree = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
        String kind = tree.path("kind").asText();
        List<JsonNode> items = new ArrayList<>();
        if (kind.endsWith("List")) {
            tree.path("items").forEach(items::add);
        } else if (kind.equals("Pod") || kind.equals("Node") || kind.equals("Event")) {
            items.add(tree);
        } else {
            return Optional.empty();
        }
        boolean pods = PODS.matcher(path).matches();
        boolean events = EVENTS.matcher(path).matches();
        ObjectNode table = JSON.createObjectNode();
        table.put("kind", "Table");
        table.put("apiVersion", "meta.k8s.io/v1");
        table.putObject("metadata").put("resourceVersion", tree.path("metadata").path("resourceVersion").asText(""));
        ArrayNode columns = table.putArray("columnDefinitions");
        if (events) {
            column(columns, "Last Seen", "string", "", 0);
            column(columns, "Type", "string", "", 0);
            column(columns, "Reason", "string", "", 0);
            column(columns, "Object", "string", "", 0);
            column(columns, "Message", "string", "", 0);
        } else if (pods) {
            column(columns, "Name", "string", "name", 0);
            column(columns, "Ready", "string", "", 0);
            column(columns, "Status", "string", "", 0);
            column(columns, "Restarts", "string", "", 0);
            column(columns, "Age", "string", "", 0);
            column(columns, "IP", "string", "", 1);
            column(columns, "Node", "string", "", 1);
        } else {
            column(columns, "Name", "string", "name", 0);
            column(columns, "Status", "string", "", 0);
            column(columns, "Roles", "string", "", 0);
            column(columns, "Age", "string", "", 0);
            column(columns, "Version", "string", "", 0);
            column(columns, "Internal-IP", "string", "", 1);
            column(columns, "OS-Image", "string", "", 1);
            column(columns, "Kernel-Version", "string", "", 1);
            column(columns, "Container-Runtime", "string", "", 1);
        }
        ArrayNode rows = table.putArray("rows");
        for (JsonNode item : items) {
            ObjectNode row = rows.addObject();
            ArrayNode cells = row.putArray("cells");
            JsonNode metadata = item.path("metadata");
            String age = age(metadata.path("creationTimestamp").asText(""), now);
            if (events) {
                JsonNode involved = item.path("involvedObject");
                String seen = item.path("lastTimestamp").asText("");
                cells.add(age(seen.isEmpty() ? metadata.path("creationTimestamp").asText("") : seen, now));
                cells.add(item.path("type").asText(""));
                cells.add(item.path("reason").asText(""));
                cells.add(involved.path("kind").asText("").toLowerCase(java.util.Locale.ROOT) + "/" + involved.path("name").asText(""));
                cells.add(item.path("message").asText(""));
            } else if (pods) {
                podCells(cells, item, age);
            } else {
                nodeCells(cells, item, age);
            }
            ObjectNode object = row.putObject("object");
            object.put("kind", "PartialObjectMetadata");
            object.put("apiVersion", "meta.k8s.io/v1");
            object.set("metadata", metadata.deepCopy());
        }
        try {
            return Optional.of(JSON.writeValueAsString(table));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    private static void column(ArrayNode columns, String name, String type, String format, int priority) {
        ObjectNode column = columns.addObject();
        column.put("name", name);
        column.put("type", type);
        column.put("format", format);
        column.put("description", "");
        column.put("priority", priority);
    }

    private static void podCells(ArrayNode cells, JsonNode pod, String age) {
        JsonNode status = pod.path("status");
        int total = pod.path("spec").path("containers").size();
        int ready = 0;
        int restarts = 0;
        String reason = status.path("reason").asText("");
        if (reason.isEmpty()) {
            reason = status.path("phase").asText("Pending");
        }
        boolean running = false;
        List<JsonNode> containers = new ArrayList<>();
        status.path("containerStatuses").forEach(containers::add);
        for (JsonNode container : containers.reversed()) {
            restarts += container.path("restartCount").asInt(0);
            JsonNode state = container.path("state");
            if (!state.path("waiting").path("reason").asText("").isEmpty()) {
                reason = state.path("waiting").path("reason").asText();
            } else if (!state.path("terminated").path("reason").asText("").isEmpty()) {
                reason = state.path("terminated").path("reason").asText();
            } else if (state.has("terminated")) {
                reason = "ExitCode:" + state.path("terminated").path("exitCode").asInt();
            } else if (container.path("ready").asBoolean(false) && state.has("running")) {
                running = true;
                ready++;
            }
        }
        if (reason.equals("Completed") && running) {
            reason = "Running";
        }
        if (!pod.path("metadata").path("deletionTimestamp").asText("").isEmpty()) {
            reason = "Terminating";
        }
        cells.add(pod.path("metadata").path("name").asText());
        cells.add(ready + "/" + total);
        cells.add(reason);
        cells.add(Integer.toString(restarts));
        cells.add(age);
        cells.add(status.path("podIP").asText("<none>"));
        cells.add(pod.path("spec").path("nodeName").asText("<none>"));
    }

    private static void nodeCells(ArrayNode cells, JsonNode node, String age) {
        JsonNode status = node.path("status");
        String ready = "Unknown";
        for (JsonNode condition : status.path("conditions")) {
            if (condition.path("type").asText().equals("Ready")) {
                ready = condition.path("status").asText().equals("True") ? "Ready" : "NotReady";
            }
        }
        String internalIp = "<none>";
        for (JsonNode address : status.path("addresses")) {
            if (address.path("type").asText().equals("InternalIP")) {
                internalIp = address.path("address").asText();
            }
        }
        JsonNode info = status.path("nodeInfo");
        cells.add(node.path("metadata").path("name").asText());
        cells.add(ready);
        cells.add("<none>");
        cells.add(age);
        cells.add(info.path("kubeletVersion").asText(""));
        cells.add(internalIp);
        cells.add(info.path("osImage").asText(""));
        cells.add(info.path("kernelVersion").asText(""));
        cells.add(info.path("containerRuntimeVersion").asText(""));
    }

    /** kubectl's short age (apimachinery's {@code duration.HumanDuration}): 45s, 3m20s, 15m, 2h10m, 20h, 3d4h, 30d. */
    static String age(String timestamp, Instant now) {
        Instant created;
        try {
            created = Instant.parse(timestamp);
        } catch (DateTimeParseException e) {
            return "<unknown>";
        }
        long seconds = Math.max(0, Duration.between(created, now).toSeconds());
        if (seconds < 120) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            return seconds % 60 == 0 ? minutes + "m" : minutes + "m" + (seconds % 60) + "s";
        }
        if (minutes < 180) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            return minutes % 60 == 0 ? hours + "h" : hours + "h" + (minutes % 60) + "m";
        }
        if (hours < 48) {
            return hours + "h";
        }
        if (hours < 24 * 8) {
            return hours % 24 == 0 ? (hours / 24) + "d" : (hours / 24) + "d" + (hours % 24) + "h";
        }
        if (hours < 24 * 365 * 2) {
            return (hours / 24) + "d";
        }
        return (hours / (24 * 365)) + "y";
    }
}
