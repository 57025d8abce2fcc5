package dev.kgpu.config.v1;

import dev.kgpu.config.BoundedFile;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A decoded config file v1, NVIDIA's {@code parseConfigFrom} done the kgpu way: every field is checked
 * while decoding and every failure is collected, each worded
 * {@code <property path> was '<value>' but it <reason>}.
 *
 * <p>Compatibility choices, each following NVIDIA's decoder ({@code sigs.k8s.io/yaml}, then Go's
 * {@code encoding/json}) unless said otherwise:
 * <ul>
 * <li>YAML 1.1 scalars: {@code yes}/{@code on}/{@code y} are booleans, quoted values are strings.</li>
 * <li>An empty file, or an empty {@code version}, means v1 with every default; another version fails.</li>
 * <li>Unknown fields are accepted and reported as {@link ConfigWarning}s (NVIDIA ignores them silently).</li>
 * <li>Field names of {@code flags}, {@code resources}, {@code sharing} and {@code imex} match
 *     case-insensitively, as Go's decoder does, with a warning; the fields of a sharing block and of its
 *     resources (decoded by NVIDIA's own code) match exactly.</li>
 * <li>A YAML {@code null} means "not set". A field given twice is an error.</li>
 * <li>Whatever NVIDIA's decoder accepts is accepted, even where it does something odd with it: a bare
 *     number for {@code sleepInterval} is nanoseconds, an empty or overlapping {@code devices} list is read
 *     (and, like {@code rename}, ignored by NVIDIA's plugin). What kgpu does differently with an accepted
 *     value is a warning, never a refusal.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 *
 * @param origin    where the file came from, for messages
 * @param values    the {@link FileField}s the file sets; use {@link #value(FileField)}
 * @param resources {@code resources}, empty lists when absent
 * @param sharing   {@code sharing}
 * @param warnings  what was accepted but looks wrong
 */
public record ConfigFile(String origin, Map<FileField<?>, Object> values, Resources resources, Sharing sharing,
                         List<ConfigWarning> warnings) {

    /** Larger than any ConfigMap (1 MiB), small enough never to strain memory. */
    static final long MAX_FILE_BYTES = 4L << 20;

    /** Top-level fields of config v1. */
    static final List<String> TOP_LEVEL = List.of("version", "flags", "resources", "sharing", "imex");

    public ConfigFile {
        values = Map.copyOf(values);
        warnings = List.copyOf(warnings);
    }

    /** No file at all: nothing set, every default applies. */
    public static ConfigFile none() {
        return new ConfigFile("(no config file)", Map.of(), Resources.NONE, Sharing.NONE, List.of());
    }

    /**
     * Reads and decodes {@code path}.
     *
     * @param property the setting that named the file ({@code --config-file}, {@code CONFIG_FILE}), for the
     *                 failure when it cannot be read
     * @throws InvalidConfigException with every failure found
     */
    public static ConfigFile read(Path path, String property) {
        return parse(BoundedFile.readText(path, MAX_FILE_BYTES, property), path.toString());
    }

    /**
     * Decodes {@code yaml}.
     *
     * @param origin where the text came from (a file name), for messages about the file as a whole
     * @throws InvalidConfigException with every failure found
     */
    public static ConfigFile parse(String yaml, String origin) {
        Decoder decoder = new Decoder();
        Optional<YamlNode> root = YamlReader.read(yaml, origin, decoder.warnings);
        if (root.isEmpty() || isNull(root.get())) {
            return new ConfigFile(origin, Map.of(), Resources.NONE, Sharing.NONE, decoder.warnings);
        }
        if (!(root.get() instanceof YamlNode.Mapping mapping)) {
            throw InvalidConfigException.of(origin, root.get().render(),
                    "must be a YAML mapping of " + String.join(", ", TOP_LEVEL));
        }
        Map<String, YamlNode> fields = decoder.fields(mapping, "", TOP_LEVEL, true);
        YamlNode version = fields.get("version");
        if (version != null) {
            String text = version instanceof YamlNode.Scalar scalar ? scalar.text() : version.render();
            if (!(version instanceof YamlNode.Scalar) || !(text.isEmpty() || text.equals(Config.VERSION))) {
                decoder.fail("version", text, "must be " + Config.VERSION + " (or empty, which means " + Config.VERSION + ")");
            }
        }
        for (String section : List.of("flags", "imex")) {
            YamlNode node = fields.get(section);
            if (node != null) {
                decoder.section(node, section, Schema.ROOT.children.get(section));
            }
        }
        Resources resources = Optional.ofNullable(fields.get("resources")).map(decoder::resources).orElse(Resources.NONE);
        Sharing sharing = Optional.ofNullable(fields.get("sharing")).map(decoder::sharing).orElse(Sharing.NONE);
        if (!decoder.failures.isEmpty()) {
            throw new InvalidConfigException(decoder.failures);
        }
        return new ConfigFile(origin, decoder.values, resources, sharing, decoder.warnings);
    }

    /** The file on its own, every field it does not set at its default (flags and environment ignored). */
    public Config config() {
        return Config.assemble(new Config.FieldValues() {
            @Override
            public <T> T get(FileField<T> field) {
                return value(field).orElse(field.defaultValue());
            }
        }, resources, sharing);
    }

    /** The value the file gives {@code field}, if it sets it. */
    @SuppressWarnings("unchecked")
    public <T> Optional<T> value(FileField<T> field) {
        return Optional.ofNullable((T) values.get(field));
    }

    private static boolean isNull(YamlNode node) {
        return node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Kind.NULL;
    }

    /** The tree of {@link FileField} paths: sections and the fields in them. */
    private static final class Schema {
        static final Schema ROOT = build();

        final Map<String, Schema> children = new LinkedHashMap<>();
        FileField<?> field;

        private static Schema build() {
            Schema root = new Schema();
            for (FileField<?> field : FileField.ALL) {
                Schema node = root;
                for (String part : field.path().split("\\.")) {
                    node = node.children.computeIfAbsent(part, p -> new Schema());
                }
                node.field = field;
            }
            return root;
        }
    }

    /** One decoding pass: collects values, failures and warnings. */
    private static final class Decoder {
        final Map<FileField<?>, Object> values = new HashMap<>();
        final List<ValidationFailure> failures = new ArrayList<>();
        final List<ConfigWarning> warnings = new ArrayList<>();

        void fail(String property, String value, String reason) {
            failures.add(new ValidationFailure(property, value, reason));
        }

        /**
         * The known fields of {@code mapping}, by their documented spelling, without nulls. Unknown
         * fields become warnings; a field given twice becomes a failure.
         */
        Map<String, YamlNode> fields(YamlNode.Mapping mapping, String path, List<String> known, boolean foldCase) {
            Map<String, YamlNode> result = new LinkedHashMap<>();
            Map<String, String> seenAs = new HashMap<>();
            for (YamlNode.Entry entry : mapping.entries()) {
                String key = entry.key();
                String canonical = known.contains(key) ? key : null;
                if (canonical == null && foldCase) {
                    canonical = known.stream().filter(k -> k.equalsIgnoreCase(key)).findFirst().orElse(null);
                    if (canonical != null) {
                        warnings.add(new ConfigWarning(ValidationFailure.join(path, canonical), "is spelled '" + key
                                + "'; NVIDIA's decoder matches field names case-insensitively, so kgpu accepts it,"
                                + " but the documented spelling is '" + canonical + "'"));
                    }
                }
                if (canonical == null) {
                    warnings.add(new ConfigWarning(ValidationFailure.join(path, key),
                            "is not a field of config v1 and is ignored, as NVIDIA's agents ignore it"
                                    + suggestion(key, known)));
                    continue;
                }
                String earlier = seenAs.putIfAbsent(canonical, key);
                if (earlier != null) {
                    fail(ValidationFailure.join(path, canonical), entry.value().render(),
                            "is given twice, as '" + earlier + "' and as '" + key + "'; give it once");
                    result.remove(canonical);
                    continue;
                }
                if (!isNull(entry.value())) {
                    result.put(canonical, entry.value());
                }
            }
            return result;
        }

        /** A section made of {@link FileField}s ({@code flags}, {@code flags.plugin}, {@code imex}). */
        void section(YamlNode node, String path, Schema schema) {
            List<String> known = List.copyOf(schema.children.keySet());
            if (!(node instanceof YamlNode.Mapping mapping)) {
                fail(path, node.render(), "must be a mapping of " + String.join(", ", known));
                return;
            }
            fields(mapping, path, known, true).forEach((name, child) -> {
                Schema childSchema = schema.children.get(name);
                String childPath = ValidationFailure.join(path, name);
                if (childSchema.field != null) {
                    leaf(childSchema.field, child, childPath);
                } else {
                    section(child, childPath, childSchema);
                }
            });
        }

        private <T> void leaf(FileField<T> field, YamlNode node, String path) {
            try {
                values.put(field, field.type().fromYaml(node));
            } catch (IllegalArgumentException e) {
                fail(path, node.render(), e.getMessage());
            }
        }

        Resources resources(YamlNode node) {
            if (!(node instanceof YamlNode.Mapping mapping)) {
                fail("resources", node.render(), "must be a mapping of gpus, mig");
                return Resources.NONE;
            }
            Map<String, YamlNode> fields = fields(mapping, "resources", List.of("gpus", "mig"), true);
            List<Resource> gpus = resourceList(fields.get("gpus"), "resources.gpus");
            List<Resource> mig = resourceList(fields.get("mig"), "resources.mig");
            return new Resources(gpus, mig);
        }

        private List<Resource> resourceList(YamlNode node, String path) {
            if (node == null) {
                return List.of();
            }
            if (!(node instanceof YamlNode.Sequence sequence)) {
                fail(path, node.render(), "must be a list of {pattern, name} entries");
                return List.of();
            }
            List<Resource> result = new ArrayList<>();
            for (int i = 0; i < sequence.items().size(); i++) {
                String itemPath = path + "[" + i + "]";
                YamlNode item = sequence.items().get(i);
                if (!(item instanceof YamlNode.Mapping mapping)) {
                    fail(itemPath, item.render(), "must be a mapping of pattern, name");
                    continue;
                }
                Map<String, YamlNode> fields = fields(mapping, itemPath, List.of("pattern", "name"), false);
                Optional<ResourcePattern> pattern = required(fields, itemPath, "pattern",
                        "must be set to a device name pattern such as '*' or 'A100*'", text -> new ResourcePattern(text));
                Optional<ResourceName> name = required(fields, itemPath, "name",
                        "must be set to a resource name such as 'gpu'", ResourceName::of);
                if (pattern.isPresent() && name.isPresent()) {
                    result.add(new Resource(pattern.get(), name.get()));
                }
            }
            return result;
        }

        Sharing sharing(YamlNode node) {
            if (!(node instanceof YamlNode.Mapping mapping)) {
                fail("sharing", node.render(), "must be a mapping of timeSlicing, mps");
                return Sharing.NONE;
            }
            Map<String, YamlNode> fields = fields(mapping, "sharing", List.of("timeSlicing", "mps"), true);
            Optional<ReplicatedResources> timeSlicing = Optional.ofNullable(fields.get("timeSlicing"))
                    .flatMap(n -> replicated(n, "sharing.timeSlicing", false));
            Optional<ReplicatedResources> mps = Optional.ofNullable(fields.get("mps"))
                    .flatMap(n -> replicated(n, "sharing.mps", true));
            if (timeSlicing.isPresent() && mps.isPresent()) {
                warnings.add(new ConfigWarning("sharing.timeSlicing", "is ignored because sharing.mps is also"
                        + " configured; MPS wins, as in NVIDIA's plugin, and the sharing strategy is mps"));
            }
            return new Sharing(timeSlicing, mps);
        }

        private Optional<ReplicatedResources> replicated(YamlNode node, String path, boolean failGreaterThanOneByDefault) {
            List<String> known = List.of("renameByDefault", "failRequestsGreaterThanOne", "resources");
            if (!(node instanceof YamlNode.Mapping mapping)) {
                fail(path, node.render(), "must be a mapping of " + String.join(", ", known));
                return Optional.empty();
            }
            int failuresBefore = failures.size();
            Map<String, YamlNode> fields = fields(mapping, path, known, false);
            boolean renameByDefault = optionalBool(fields, path, "renameByDefault", false);
            boolean failGreaterThanOne = optionalBool(fields, path, "failRequestsGreaterThanOne", failGreaterThanOneByDefault);
            YamlNode resourcesNode = fields.get("resources");
            String resourcesPath = path + ".resources";
            List<ReplicatedResource> resources = new ArrayList<>();
            if (resourcesNode == null) {
                failures.add(ValidationFailure.missing(resourcesPath, "must list at least one resource to share"));
            } else if (!(resourcesNode instanceof YamlNode.Sequence sequence)) {
                fail(resourcesPath, resourcesNode.render(), "must be a list of {name, replicas, rename, devices} entries");
            } else {
                for (int i = 0; i < sequence.items().size(); i++) {
                    replicatedResource(sequence.items().get(i), resourcesPath + "[" + i + "]", renameByDefault)
                            .ifPresent(resources::add);
                }
            }
            if (failures.size() > failuresBefore) {
                return Optional.empty();
            }
            try {
                return Optional.of(new ReplicatedResources(renameByDefault, failGreaterThanOne, resources));
            } catch (InvalidConfigException e) {
                failures.addAll(e.under(path).failures());
                return Optional.empty();
            }
        }

        private Optional<ReplicatedResource> replicatedResource(YamlNode node, String path, boolean renameByDefault) {
            List<String> known = List.of("name", "rename", "devices", "replicas");
            if (!(node instanceof YamlNode.Mapping mapping)) {
                fail(path, node.render(), "must be a mapping of " + String.join(", ", known));
                return Optional.empty();
            }
            int failuresBefore = failures.size();
            for (YamlNode.Entry entry : mapping.entries()) {
                // NVIDIA's decoders read a null devices or rename as '' and refuse it
                if ((entry.key().equals("devices") || entry.key().equals("rename")) && isNull(entry.value())) {
                    fail(path + "." + entry.key(), entry.value().render(), entry.key().equals("devices")
                            ? "must be 'all', a positive count of devices, or a list of devices (NVIDIA's decoder refuses"
                                    + " an empty value); leave it out for all"
                            : "must be a resource name (NVIDIA's decoder refuses an empty one); leave it out for none");
                }
            }
            Map<String, YamlNode> fields = fields(mapping, path, known, false);
            Optional<ResourceName> name = required(fields, path, "name",
                    "must be set to the resource to share, such as nvidia.com/gpu", ResourceName::of);
            Optional<ResourceName> rename = Optional.empty();
            if (fields.containsKey("rename")) {
                rename = required(fields, path, "rename", "", ResourceName::of);
            } else if (renameByDefault && name.isPresent()) {
                try {
                    rename = Optional.of(name.get().sharedRename());
                } catch (IllegalArgumentException e) {
                    fail(path + ".name", name.get().value(), "must leave room for the '" + ResourceName.SHARED_SUFFIX
                            + "' suffix that renameByDefault adds: the renamed resource " + e.getMessage());
                }
            }
            ReplicatedDevices devices = Optional.ofNullable(fields.get("devices"))
                    .map(d -> devices(d, path + ".devices")).orElse(ReplicatedDevices.ALL);
            int replicas = 0;
            YamlNode replicasNode = fields.get("replicas");
            if (replicasNode == null) {
                failures.add(ValidationFailure.missing(path + ".replicas", "must be set to the number of replicas, at least 2"));
            } else {
                try {
                    replicas = ValueType.intValue(replicasNode, "must be an integer");
                    ReplicatedResource.checkReplicas(replicas);
                } catch (IllegalArgumentException e) {
                    fail(path + ".replicas", replicasNode.render(), e.getMessage());
                }
            }
            if (failures.size() > failuresBefore || name.isEmpty()) {
                return Optional.empty();
            }
            try {
                return Optional.of(new ReplicatedResource(name.get(), rename, devices, replicas));
            } catch (InvalidConfigException e) {
                failures.addAll(e.under(path).failures());
                return Optional.empty();
            }
        }

        private ReplicatedDevices devices(YamlNode node, String path) {
            String reason = "must be 'all', a positive count of devices, or a list of GPU indices, MIG indices ('0:1')"
                    + " and GPU or MIG UUIDs";
            try {
                return switch (node) {
                    case YamlNode.Scalar scalar when scalar.kind() == YamlNode.Kind.STRING && scalar.text().equals("all") ->
                            ReplicatedDevices.ALL;
                    case YamlNode.Scalar scalar when scalar.kind() == YamlNode.Kind.INT
                            || ValueType.integralFloat(scalar).isPresent() ->
                            new ReplicatedDevices.Count(ValueType.intValue(scalar, reason));
                    case YamlNode.Scalar scalar -> throw new IllegalArgumentException(reason);
                    case YamlNode.Mapping mapping -> throw new IllegalArgumentException(reason);
                    case YamlNode.Sequence sequence -> {
                        List<DeviceRef> refs = new ArrayList<>();
                        boolean failed = false;
                        for (int i = 0; i < sequence.items().size(); i++) {
                            YamlNode item = sequence.items().get(i);
                            try {
                                refs.add(deviceRef(item));
                            } catch (IllegalArgumentException e) {
                                fail(path + "[" + i + "]", item.render(), e.getMessage());
                                failed = true;
                            }
                        }
                        yield failed ? ReplicatedDevices.ALL : new ReplicatedDevices.DeviceList(refs);
                    }
                };
            } catch (IllegalArgumentException e) {
                fail(path, node.render(), e.getMessage());
                return ReplicatedDevices.ALL;
            }
        }

        private static DeviceRef deviceRef(YamlNode item) {
            if (item instanceof YamlNode.Scalar scalar && (scalar.kind() == YamlNode.Kind.INT
                    || ValueType.integralFloat(scalar).isPresent())) {
                return new DeviceRef.GpuIndex(ValueType.intValue(scalar, "must be a GPU index"));
            }
            if (item instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Kind.STRING) {
                return DeviceRef.parse(scalar.text());
            }
            return DeviceRef.parse(item.render());
        }

        private boolean optionalBool(Map<String, YamlNode> fields, String path, String name, boolean defaultValue) {
            YamlNode node = fields.get(name);
            if (node == null) {
                return defaultValue;
            }
            try {
                return ValueType.bool().fromYaml(node);
            } catch (IllegalArgumentException e) {
                fail(path + "." + name, node.render(), e.getMessage());
                return defaultValue;
            }
        }

        private <T> Optional<T> required(Map<String, YamlNode> fields, String path, String name, String missingReason,
                                         Function<String, T> parse) {
            String property = path + "." + name;
            YamlNode node = fields.get(name);
            if (node == null) {
                failures.add(ValidationFailure.missing(property, missingReason));
                return Optional.empty();
            }
            if (!(node instanceof YamlNode.Scalar scalar)) {
                fail(property, node.render(), "must be a string, not " + node.kindName());
                return Optional.empty();
            }
            try {
                return Optional.of(parse.apply(scalar.text()));
            } catch (IllegalArgumentException e) {
                fail(property, scalar.text(), e.getMessage());
                return Optional.empty();
            }
        }

        private static String suggestion(String key, List<String> known) {
            return known.stream()
                    .filter(k -> distance(k.toLowerCase(), key.toLowerCase()) <= 2)
                    .min(java.util.Comparator.comparingInt(k -> distance(k.toLowerCase(), key.toLowerCase())))
                    .map(k -> "; did you mean '" + k + "'?")
                    .orElse("");
        }

        private static int distance(String a, String b) {
            int[] previous = new int[b.length() + 1];
            int[] current = new int[b.length() + 1];
            for (int j = 0; j <= b.length(); j++) {
                previous[j] = j;
            }
            for (int i = 1; i <= a.length(); i++) {
                current[0] = i;
                for (int j = 1; j <= b.length(); j++) {
                    int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                    current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
                }
                int[] swap = previous;
                previous = current;
                current = swap;
            }
            return previous[b.length()];
        }
    }
}
