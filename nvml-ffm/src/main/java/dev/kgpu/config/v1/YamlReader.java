package dev.kgpu.config.v1;

import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.DumperOptions.ScalarStyle;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * The only class that sees SnakeYAML: it composes the document into SnakeYAML's node graph (no
 * object construction, so no arbitrary types), then copies it into {@link YamlNode}s. Plain scalars
 * are typed by go-yaml v2's rules ({@link YamlNode.Scalar#plain(String)}), quoted ones are strings,
 * an explicit tag ({@code !!str 1}) wins.
 */
final class YamlReader {

    /** Deeper than any real config; stops recursive anchors from looping. */
    private static final int MAX_DEPTH = 32;
    /** Implicit YAML 1.1 tags, to tell an explicit tag ({@code !!str 1}) from a resolved one; read-only once built. */
    private static final Resolver RESOLVER = new Resolver();
    /** As ConfigFile.MAX_FILE_BYTES: more than a ConfigMap (1 MiB) holds. */
    private static final int MAX_CODE_POINTS = 4 << 20;

    private final String yaml;
    private final String origin;

    private YamlReader(String yaml, String origin) {
        this.yaml = yaml;
        this.origin = origin;
    }

    /**
     * The first document of {@code yaml}, or empty for an empty file (which NVIDIA reads as all defaults).
     *
     * @param origin where the text came from, used as the property in syntax errors
     * @param warnings receives a warning when the file holds more than one document (NVIDIA reads the
     *                 first and ignores the rest)
     */
    static Optional<YamlNode> read(String yaml, String origin, List<ConfigWarning> warnings) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setAllowRecursiveKeys(false);
        options.setMaxAliasesForCollections(50);
        options.setCodePointLimit(MAX_CODE_POINTS);
        options.setProcessComments(false);
        Yaml parser = new Yaml(options);
        try {
            Iterator<Node> documents = parser.composeAll(new StringReader(yaml)).iterator();
            if (!documents.hasNext()) {
                return Optional.empty();
            }
            Node first = documents.next();
            if (documents.hasNext()) {
                warnings.add(new ConfigWarning(origin,
                        "holds more than one YAML document; only the first is read, as NVIDIA's agents do"));
            }
            return Optional.of(new YamlReader(yaml, origin).convert(first, 0));
        } catch (MarkedYAMLException e) {
            throw new InvalidConfigException(new ValidationFailure(origin, where(e.getProblemMark(), yaml),
                    "is not valid YAML: " + e.getProblem()));
        } catch (YAMLException e) {
            throw new InvalidConfigException(new ValidationFailure(origin, abbreviate(yaml),
                    "is not valid YAML: " + e.getMessage()));
        }
    }

    private YamlNode convert(Node node, int depth) {
        if (depth > MAX_DEPTH) {
            throw syntaxError(node.getStartMark(), "nests deeper than " + MAX_DEPTH + " levels (a recursive anchor?)");
        }
        return switch (node) {
            case ScalarNode scalar -> scalar(scalar);
            case SequenceNode sequence -> {
                List<YamlNode> items = new ArrayList<>(sequence.getValue().size());
                for (Node item : sequence.getValue()) {
                    items.add(convert(item, depth + 1));
                }
                yield new YamlNode.Sequence(items);
            }
            case MappingNode mapping -> {
                List<YamlNode.Entry> entries = new ArrayList<>(mapping.getValue().size());
                for (NodeTuple tuple : mapping.getValue()) {
                    if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
                        throw syntaxError(tuple.getKeyNode().getStartMark(),
                                "uses a list or mapping as a key; keys must be plain names");
                    }
                    if (key.getValue().equals("<<") && key.getScalarStyle() == ScalarStyle.PLAIN) {
                        throw syntaxError(key.getStartMark(),
                                "uses a merge key (<<), which kgpu does not support; write the fields out");
                    }
                    entries.add(new YamlNode.Entry(key.getValue(), convert(tuple.getValueNode(), depth + 1)));
                }
                yield new YamlNode.Mapping(entries);
            }
            default -> throw syntaxError(node.getStartMark(), "holds an unexpected YAML node " + node.getNodeId());
        };
    }

    private static YamlNode.Scalar scalar(ScalarNode scalar) {
        String text = scalar.getValue();
        if (scalar.getScalarStyle() != ScalarStyle.PLAIN) {
            return YamlNode.Scalar.string(text);
        }
        Tag implicit = RESOLVER.resolve(NodeId.scalar, text, true);
        if (!scalar.getTag().equals(implicit)) {
            // an explicit tag such as !!str or !!int
            Tag tag = scalar.getTag();
            if (tag.equals(Tag.STR)) {
                return YamlNode.Scalar.string(text);
            }
            if (tag.equals(Tag.NULL)) {
                return new YamlNode.Scalar(text, YamlNode.Kind.NULL);
            }
        }
        return YamlNode.Scalar.plain(text);
    }

    private InvalidConfigException syntaxError(Mark mark, String reason) {
        return new InvalidConfigException(new ValidationFailure(origin, where(mark, yaml), reason));
    }

    private static String where(Mark mark, String yaml) {
        if (mark == null) {
            return abbreviate(yaml);
        }
        String[] lines = yaml.split("\n", -1);
        String line = mark.getLine() < lines.length ? lines[mark.getLine()].strip() : "";
        return "line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1) + ": " + line;
    }

    private static String abbreviate(String yaml) {
        String firstLine = yaml.lines().findFirst().orElse("");
        return firstLine.strip();
    }
}
