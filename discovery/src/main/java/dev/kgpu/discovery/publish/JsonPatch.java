package dev.kgpu.discovery.publish;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Map;

/**
 * A JSON Patch (RFC 6902) built op by op. The sinks use it rather than a merge patch: each op names one
 * key, carries no {@code resourceVersion}, and so cannot clobber what others change at the same time; a
 * {@code remove} of a key that vanished meanwhile fails the whole patch (422), and the pass is retried.
 */
final class JsonPatch {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ArrayNode ops = JSON.createArrayNode();

    /** Sets {@code map[key] = value} in the object at {@code mapPath}, which exists. */
    JsonPatch put(String mapPath, String key, String value) {
        ops.addObject().put("op", "add").put("path", mapPath + "/" + escape(key)).put("value", value);
        return this;
    }

    /** Removes {@code map[key]}, which exists. */
    JsonPatch remove(String mapPath, String key) {
        ops.addObject().put("op", "remove").put("path", mapPath + "/" + escape(key));
        return this;
    }

    /** Sets the whole object at {@code path} (creating or replacing it). */
    JsonPatch set(String path, Map<String, String> map) {
        ObjectNode value = ops.addObject().put("op", "add").put("path", path).putObject("value");
        map.forEach(value::put);
        return this;
    }

    boolean isEmpty() {
        return ops.isEmpty();
    }

    @Override
    public String toString() {
        return ops.toString();
    }

    /** JSON Pointer escaping: {@code ~} becomes {@code ~0}, {@code /} becomes {@code ~1}. */
    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
