package dev.kgpu.config.v1;

import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.DumperOptions.ScalarStyle;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.CollectionEndEvent;
import org.yaml.snakeyaml.events.CollectionStartEvent;
import org.yaml.snakeyaml.events.DocumentEndEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.reader.ReaderException;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * The only class that sees SnakeYAML: it composes the document into SnakeYAML's node graph (no
 * object construction, so no arbitrary types), then copies it into {@link YamlNode}s. Plain scalars
 * are typed by go-yaml v2's rules ({@link YamlNode.Scalar#plain(String)}), quoted ones are strings,
 * an explicit tag ({@code !!str 1}) wins.
 */
public final class YamlReader {

    /** Deeper than any real config; stops recursive anchors from looping. */
    private static final int MAX_DEPTH = 32;
    /** Implicit YAML 1.1 tags, to tell an explicit tag ({@code !!str 1}) from a resolved one; read-only once built. */
    private static final Resolver RESOLVER = new Resolver();
    /** As ConfigFile.MAX_FILE_BYTES: more than a ConfigMap (1 MiB) holds. */
    private static final int MAX_CODE_POINTS = 4 << 20;
    /**
     * The most YAML nodes (scalars, lists, mappings) the first document may expand to, each alias counted
     * as a copy of what it names. NVIDIA's largest documented configs hold under 200; this bounds the memory
     * and time of an alias bomb under the alias limit (48 aliases can name 3^16 nodes) and of a file of
     * hundreds of thousands of keys under the size limit, before anything is built from them.
     */
    static final int MAX_NODES = 50_000;
    /** Fewer than any alias bomb needs; NVIDIA's configs use none. */
    private static final int MAX_ALIASES = 50;

    /**
     * No line of a config file comes near this; SnakeYAML's time grows faster than linearly with the length of
     * one scalar (a 2 MiB value on one line took 5 s), so longer lines are refused before parsing.
     */
    static final int MAX_LINE_CHARS = 64 << 10;

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
    public static Optional<YamlNode> read(String yaml, String origin, List<ConfigWarning> warnings) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setAllowRecursiveKeys(false);
        options.setMaxAliasesForCollections(MAX_ALIASES);
        options.setCodePointLimit(MAX_CODE_POINTS);
        options.setProcessComments(false);
        Yaml parser = new Yaml(options);
        try {
            checkLineLengths(yaml, origin);
            checkExpandedSize(parser, yaml, origin);
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
        } catch (ReaderException e) {
            // a character YAML does not allow (NUL, other control characters): say where it is
            throw new InvalidConfigException(new ValidationFailure(origin, at(e.getPosition(), yaml),
                    "is not valid YAML: it holds U+" + String.format("%04X", e.getCodePoint())
                            + ", a character YAML does not allow"));
        } catch (YAMLException e) {
            throw new InvalidConfigException(new ValidationFailure(origin, abbreviate(yaml),
                    "is not valid YAML: " + e.getMessage()));
        }
    }

    /**
     * Counts the first document's nodes as alias expansion would produce them, from the parser's events
     * alone (nothing is built, so a bomb costs no memory), and refuses the document past {@link #MAX_NODES}.
     * Syntax errors are left to the composer, which reports the same ones.
     */
    private static void checkExpandedSize(Yaml parser, String yaml, String origin) {
        Map<String, Long> anchored = new HashMap<>();
        // for each open collection: its anchor (or null) and the count when it opened
        Deque<Object[]> open = new ArrayDeque<>();
        long expanded = 0;
        for (Event event : parser.parse(new StringReader(yaml))) {
            long added = switch (event) {
                case ScalarEvent scalar -> 1;
                case AliasEvent alias -> anchored.getOrDefault(alias.getAnchor(), 1L);
                case CollectionStartEvent start -> {
                    open.push(new Object[] {start.getAnchor(), expanded});
                    yield 1;
                }
                default -> 0;
            };
            expanded += added;
            if (expanded > MAX_NODES) {
                throw new InvalidConfigException(new ValidationFailure(origin, where(event.getStartMark(), yaml),
                        "expands to more than " + MAX_NODES + " YAML nodes (each alias counted as a copy of what it"
                                + " names); a config file holds a few hundred at most"));
            }
            if (event instanceof ScalarEvent scalar && scalar.getAnchor() != null) {
                anchored.put(scalar.getAnchor(), 1L);
            } else if (event instanceof CollectionEndEvent && !open.isEmpty()) {
                Object[] collection = open.pop();
                if (collection[0] != null) {
                    anchored.put((String) collection[0], expanded - (long) collection[1]);
                }
            } else if (event instanceof DocumentEndEvent) {
                return; // only the first document is read
            }
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

    private static void checkLineLengths(String yaml, String origin) {
        int line = 1;
        int start = 0;
        for (int i = 0; i <= yaml.length(); i++) {
            if (i == yaml.length() || yaml.charAt(i) == '\n') {
                if (i - start > MAX_LINE_CHARS) {
                    throw new InvalidConfigException(new ValidationFailure(origin,
                            "line " + line + ": " + yaml.substring(start, start + 60),
                            "has a line of " + (i - start) + " characters, more than the " + MAX_LINE_CHARS
                                    + " any config file needs"));
                }
                line++;
                start = i + 1;
            }
        }
    }

    /** {@code line 2, column 7: <that line>} for the character at {@code index} of {@code yaml}. */
    private static String at(int index, String yaml) {
        int start = 0;
        int line = 0;
        for (int i = 0; i < Math.min(index, yaml.length()); i++) {
            if (yaml.charAt(i) == '\n') {
                line++;
                start = i + 1;
            }
        }
        int end = yaml.indexOf('\n', start);
        return "line " + (line + 1) + ", column " + (index - start + 1) + ": "
                + (end < 0 ? yaml.substring(start) : yaml.substring(start, end)).strip();
    }

    private static String abbreviate(String yaml) {
        String firstLine = yaml.lines().findFirst().orElse("");
        return firstLine.strip();
    }
}
