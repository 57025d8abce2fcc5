package dev.kgpu.cdi;

import dev.kgpu.config.GoJson;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * CDI specs as text. {@link #write} produces what Go's {@code json.Marshal} makes of the CDI project's
 * {@code specs.Spec} (the bytes NVIDIA's device plugin writes): compact, fields in the struct's order, empty
 * optional fields left out, map keys sorted, {@code <}, {@code >} and {@code &} escaped. {@link #parse} reads JSON
 * or YAML strictly, as the CDI library does: an unknown field is an error.
 *
 * <p>Stateless and thread-safe.
 */
public final class CdiJson {

    private static final int MAX_CODE_POINTS = 16 << 20;
    /** The most bytes a spec file may hold: as many as the parser takes code points. */
    static final long MAX_BYTES = MAX_CODE_POINTS;

    private CdiJson() {
    }

    /** {@code spec} as one line of JSON. */
    public static String write(CdiSpec spec) {
        StringBuilder out = new StringBuilder(4096);
        out.append("{\"cdiVersion\":");
        string(out, spec.cdiVersion());
        out.append(",\"kind\":");
        string(out, spec.kind());
        if (!spec.annotations().isEmpty()) {
            out.append(",\"annotations\":");
            map(out, spec.annotations());
        }
        out.append(",\"devices\":[");
        for (int i = 0; i < spec.devices().size(); i++) {
            CdiSpec.Device device = spec.devices().get(i);
            out.append(i == 0 ? "" : ",").append("{\"name\":");
            string(out, device.name());
            if (!device.annotations().isEmpty()) {
                out.append(",\"annotations\":");
                map(out, device.annotations());
            }
            out.append(",\"containerEdits\":");
            edits(out, device.containerEdits());
            out.append('}');
        }
        out.append(']');
        // Go's omitempty never drops a struct: the spec-level edits are always written
        out.append(",\"containerEdits\":");
        edits(out, spec.containerEdits());
        return out.append('}').toString();
    }

    private static void edits(StringBuilder out, CdiSpec.ContainerEdits edits) {
        Fields f = new Fields(out);
        if (!edits.env().isEmpty()) {
            f.name("env");
            strings(out, edits.env());
        }
        if (!edits.deviceNodes().isEmpty()) {
            f.name("deviceNodes");
            out.append('[');
            for (int i = 0; i < edits.deviceNodes().size(); i++) {
                CdiSpec.DeviceNode n = edits.deviceNodes().get(i);
                out.append(i == 0 ? "" : ",");
                Fields d = new Fields(out);
                d.name("path");
                string(out, n.path());
                n.hostPath().filter(p -> !p.isEmpty()).ifPresent(p -> { d.name("hostPath"); string(out, p); });
                n.type().ifPresent(t -> { d.name("type"); string(out, t); });
                n.major().stream().filter(v -> v != 0).forEach(v -> { d.name("major"); out.append(v); });
                n.minor().stream().filter(v -> v != 0).forEach(v -> { d.name("minor"); out.append(v); });
                n.fileMode().ifPresent(v -> { d.name("fileMode"); out.append(v); });
                n.permissions().filter(p -> !p.isEmpty()).ifPresent(p -> { d.name("permissions"); string(out, p); });
                n.uid().ifPresent(v -> { d.name("uid"); out.append(v); });
                n.gid().ifPresent(v -> { d.name("gid"); out.append(v); });
                d.close();
            }
            out.append(']');
        }
        if (!edits.netDevices().isEmpty()) {
            f.name("netDevices");
            out.append('[');
            for (int i = 0; i < edits.netDevices().size(); i++) {
                CdiSpec.NetDevice n = edits.netDevices().get(i);
                out.append(i == 0 ? "" : ",").append("{\"hostInterfaceName\":");
                string(out, n.hostInterfaceName());
                out.append(",\"name\":");
                string(out, n.name());
                out.append('}');
            }
            out.append(']');
        }
        if (!edits.hooks().isEmpty()) {
            f.name("hooks");
            out.append('[');
            for (int i = 0; i < edits.hooks().size(); i++) {
                CdiSpec.Hook h = edits.hooks().get(i);
                out.append(i == 0 ? "" : ",").append("{\"hookName\":");
                string(out, h.hookName());
                out.append(",\"path\":");
                string(out, h.path());
                if (!h.args().isEmpty()) {
                    out.append(",\"args\":");
                    strings(out, h.args());
                }
                if (!h.env().isEmpty()) {
                    out.append(",\"env\":");
                    strings(out, h.env());
                }
                h.timeout().ifPresent(t -> out.append(",\"timeout\":").append(t));
                out.append('}');
            }
            out.append(']');
        }
        if (!edits.mounts().isEmpty()) {
            f.name("mounts");
            out.append('[');
            for (int i = 0; i < edits.mounts().size(); i++) {
                CdiSpec.Mount m = edits.mounts().get(i);
                out.append(i == 0 ? "" : ",").append("{\"hostPath\":");
                string(out, m.hostPath());
                out.append(",\"containerPath\":");
                string(out, m.containerPath());
                if (!m.options().isEmpty()) {
                    out.append(",\"options\":");
                    strings(out, m.options());
                }
                m.type().filter(t -> !t.isEmpty()).ifPresent(t -> { out.append(",\"type\":"); string(out, t); });
                out.append('}');
            }
            out.append(']');
        }
        edits.intelRdt().ifPresent(r -> {
            f.name("intelRdt");
            Fields d = new Fields(out);
            r.closID().ifPresent(v -> { d.name("closID"); string(out, v); });
            r.l3CacheSchema().ifPresent(v -> { d.name("l3CacheSchema"); string(out, v); });
            r.memBwSchema().ifPresent(v -> { d.name("memBwSchema"); string(out, v); });
            if (!r.schemata().isEmpty()) {
                d.name("schemata");
                strings(out, r.schemata());
            }
            if (r.enableMonitoring()) {
                d.name("enableMonitoring");
                out.append("true");
            }
            d.close();
        });
        if (!edits.additionalGids().isEmpty()) {
            f.name("additionalGids");
            out.append('[');
            for (int i = 0; i < edits.additionalGids().size(); i++) {
                out.append(i == 0 ? "" : ",").append(edits.additionalGids().get(i));
            }
            out.append(']');
        }
        f.close();
    }

    /** Writes {@code {"a":..,"b":..}} field by field. */
    private static final class Fields {
        private final StringBuilder out;
        private boolean first = true;

        Fields(StringBuilder out) {
            this.out = out;
            out.append('{');
        }

        void name(String name) {
            out.append(first ? "" : ",").append('"').append(name).append("\":");
            first = false;
        }

        void close() {
            out.append('}');
        }
    }

    private static void strings(StringBuilder out, List<String> values) {
        out.append('[');
        for (int i = 0; i < values.size(); i++) {
            out.append(i == 0 ? "" : ",");
            string(out, values.get(i));
        }
        out.append(']');
    }

    private static void map(StringBuilder out, Map<String, String> values) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
            out.append(first ? "" : ",");
            first = false;
            string(out, e.getKey());
            out.append(':');
            string(out, e.getValue());
        }
        out.append('}');
    }

    private static void string(StringBuilder out, String value) {
        GoJson.string(out, value);
    }

    // ---- reading -------------------------------------------------------------------------------------------

    /**
     * Reads a spec from JSON or YAML text.
     *
     * @param origin where the text came from (a file), named in errors
     * @throws CdiException naming the origin, the field and the value when the text is not a valid spec
     */
    public static CdiSpec parse(String text, String origin) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(50);
        options.setCodePointLimit(MAX_CODE_POINTS);
        Object root;
        try {
            root = new Yaml(new SafeConstructor(options)).load(text);
        } catch (YAMLException e) {
            throw new CdiException(origin + ": not a CDI spec (neither JSON nor YAML): " + firstLine(e.getMessage()), e);
        }
        try {
            return spec(new Node(root, ""));
        } catch (CdiException e) {
            throw new CdiException(origin + ": " + e.getMessage(), e);
        }
    }

    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }

    private static CdiSpec spec(Node root) {
        root.onlyKeys("cdiVersion", "kind", "annotations", "devices", "containerEdits");
        List<CdiSpec.Device> devices = new ArrayList<>();
        Node list = root.required("devices");
        for (Node d : list.list()) {
            d.onlyKeys("name", "annotations", "containerEdits");
            devices.add(new CdiSpec.Device(d.required("name").string(), d.optional("annotations").map(Node::stringMap).orElse(Map.of()),
                    edits(d.required("containerEdits"))));
        }
        return new CdiSpec(root.required("cdiVersion").string(), root.required("kind").string(),
                root.optional("annotations").map(Node::stringMap).orElse(Map.of()), devices,
                root.optional("containerEdits").map(CdiJson::edits).orElse(CdiSpec.ContainerEdits.EMPTY));
    }

    private static CdiSpec.ContainerEdits edits(Node e) {
        e.onlyKeys("env", "deviceNodes", "netDevices", "hooks", "mounts", "intelRdt", "additionalGids");
        List<CdiSpec.DeviceNode> nodes = new ArrayList<>();
        for (Node n : e.optional("deviceNodes").map(Node::list).orElse(List.of())) {
            n.onlyKeys("path", "hostPath", "type", "major", "minor", "fileMode", "permissions", "uid", "gid");
            nodes.add(new CdiSpec.DeviceNode(n.required("path").string(), n.optionalString("hostPath").filter(s -> !s.isEmpty()),
                    n.optionalString("type").filter(s -> !s.isEmpty()), n.optionalLong("major"), n.optionalLong("minor"),
                    n.optionalLong("fileMode"), n.optionalString("permissions").filter(s -> !s.isEmpty()),
                    n.optionalLong("uid"), n.optionalLong("gid")));
        }
        List<CdiSpec.Hook> hooks = new ArrayList<>();
        for (Node h : e.optional("hooks").map(Node::list).orElse(List.of())) {
            h.onlyKeys("hookName", "path", "args", "env", "timeout");
            OptionalLong timeout = h.optionalLong("timeout");
            hooks.add(new CdiSpec.Hook(h.required("hookName").string(), h.required("path").string(),
                    h.optional("args").map(Node::strings).orElse(List.of()), h.optional("env").map(Node::strings).orElse(List.of()),
                    timeout.isPresent() ? OptionalInt.of((int) timeout.getAsLong()) : OptionalInt.empty()));
        }
        List<CdiSpec.Mount> mounts = new ArrayList<>();
        for (Node m : e.optional("mounts").map(Node::list).orElse(List.of())) {
            m.onlyKeys("hostPath", "containerPath", "options", "type");
            mounts.add(new CdiSpec.Mount(m.required("hostPath").string(), m.required("containerPath").string(),
                    m.optional("options").map(Node::strings).orElse(List.of()), m.optionalString("type").filter(s -> !s.isEmpty())));
        }
        List<CdiSpec.NetDevice> netDevices = new ArrayList<>();
        for (Node n : e.optional("netDevices").map(Node::list).orElse(List.of())) {
            n.onlyKeys("hostInterfaceName", "name");
            netDevices.add(new CdiSpec.NetDevice(n.required("hostInterfaceName").string(), n.required("name").string()));
        }
        Optional<CdiSpec.IntelRdt> rdt = e.optional("intelRdt").map(r -> {
            r.onlyKeys("closID", "l3CacheSchema", "memBwSchema", "schemata", "enableMonitoring");
            return new CdiSpec.IntelRdt(r.optionalString("closID"), r.optionalString("l3CacheSchema"),
                    r.optionalString("memBwSchema"), r.optional("schemata").map(Node::strings).orElse(List.of()),
                    r.optional("enableMonitoring").map(Node::bool).orElse(false));
        });
        List<Long> gids = new ArrayList<>();
        for (Node g : e.optional("additionalGids").map(Node::list).orElse(List.of())) {
            gids.add(g.uint32());
        }
        return new CdiSpec.ContainerEdits(e.optional("env").map(Node::strings).orElse(List.of()), nodes, hooks, mounts,
                rdt, gids, netDevices);
    }

    /** A value in the parsed tree with its path, for messages. */
    private record Node(Object value, String path) {

        String child(String key) {
            return path.isEmpty() ? key : path + "." + key;
        }

        Map<?, ?> map() {
            if (!(value instanceof Map<?, ?> map)) {
                throw bad("must be an object");
            }
            return map;
        }

        void onlyKeys(String... keys) {
            Set<String> allowed = Set.of(keys);
            for (Object key : map().keySet()) {
                if (!(key instanceof String k) || !allowed.contains(k)) {
                    throw new CdiException(child(String.valueOf(key)) + " was present but it is no field of a CDI spec"
                            + " (unknown field \"" + key + "\")");
                }
            }
        }

        Optional<Node> optional(String key) {
            Object v = map().get(key);
            return v == null ? Optional.empty() : Optional.of(new Node(v, child(key)));
        }

        Node required(String key) {
            return optional(key).orElseThrow(() -> new CdiException(child(key) + " was missing but it is required"));
        }

        Optional<String> optionalString(String key) {
            return optional(key).map(Node::string);
        }

        OptionalLong optionalLong(String key) {
            Optional<Node> n = optional(key);
            return n.isPresent() ? OptionalLong.of(n.get().integer()) : OptionalLong.empty();
        }

        String string() {
            if (!(value instanceof String s)) {
                throw bad("must be a string");
            }
            return s;
        }

        boolean bool() {
            if (!(value instanceof Boolean b)) {
                throw bad("must be true or false");
            }
            return b;
        }

        long integer() {
            if (value instanceof Integer || value instanceof Long) {
                return ((Number) value).longValue();
            }
            if (value instanceof BigInteger big && big.bitLength() < 64) {
                return big.longValue();
            }
            throw bad("must be an integer");
        }

        long uint32() {
            long v = integer();
            if (v < 0 || v > 0xFFFF_FFFFL) {
                throw bad("must be an unsigned 32-bit integer");
            }
            return v;
        }

        List<Node> list() {
            if (!(value instanceof List<?> list)) {
                throw bad("must be a list");
            }
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                nodes.add(new Node(list.get(i), path + "[" + i + "]"));
            }
            return nodes;
        }

        List<String> strings() {
            return list().stream().map(Node::string).toList();
        }

        Map<String, String> stringMap() {
            Map<String, String> out = new TreeMap<>();
            for (Map.Entry<?, ?> e : map().entrySet()) {
                out.put(String.valueOf(e.getKey()), new Node(e.getValue(), child(String.valueOf(e.getKey()))).string());
            }
            return out;
        }

        CdiException bad(String reason) {
            return new CdiException(path + " was '" + value + "' but it " + reason);
        }
    }
}
