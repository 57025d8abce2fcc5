package dev.kgpu.config.v1;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A YAML document as the decoder sees it: scalars keep their text, and plain scalars are typed the way
 * NVIDIA's parser ({@code sigs.k8s.io/yaml} over go-yaml v2, YAML 1.1) types them, so {@code yes},
 * {@code on} and {@code y} are booleans, {@code 0x10} is an integer, and a quoted {@code "true"} stays a
 * string. Immutable. Public for the few YAML files outside the device plugin's config that follow the same
 * rules (the exporter's web config).
 */
public sealed interface YamlNode {

    /** A compact, one-line rendering for error messages: {@code [0, 1]}, {@code {name: gpu}}. */
    String render();

    /** What the decoder calls this kind of node in messages: "a mapping", "a list", "a string". */
    String kindName();

    enum Kind { NULL, BOOL, INT, FLOAT, STRING }

    record Scalar(String text, Kind kind) implements YamlNode {

        // go-yaml v2 resolve.go: the plain scalars that are booleans or nulls.
        private static final List<String> TRUE = List.of("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
                "on", "On", "ON");
        private static final List<String> FALSE = List.of("n", "N", "no", "No", "NO", "false", "False", "FALSE",
                "off", "Off", "OFF");
        private static final List<String> NULL = List.of("", "~", "null", "Null", "NULL");
        private static final Pattern FLOAT = Pattern.compile(
                "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");

        static Scalar plain(String text) {
            if (NULL.contains(text)) {
                return new Scalar(text, Kind.NULL);
            }
            if (TRUE.contains(text) || FALSE.contains(text)) {
                return new Scalar(text, Kind.BOOL);
            }
            if (goInteger(text).isPresent()) {
                return new Scalar(text, Kind.INT);
            }
            if (FLOAT.matcher(text.replace("_", "")).matches()) {
                return new Scalar(text, Kind.FLOAT);
            }
            return new Scalar(text, Kind.STRING);
        }

        static Scalar string(String text) {
            return new Scalar(text, Kind.STRING);
        }

        public boolean booleanValue() {
            return TRUE.contains(text);
        }

        /** The integer value when this is an integer that fits in a {@code long}. */
        public Optional<Long> longValue() {
            if (kind != Kind.INT) {
                return Optional.empty();
            }
            return goInteger(text).filter(v -> v.bitLength() < 64).map(BigInteger::longValue);
        }

        /**
         * go-yaml v2's integer rule: underscores dropped, then Go's {@code strconv.ParseInt(s, 0, 64)}
         * (or ParseUint): decimal, {@code 0x} hex, {@code 0o} or leading-{@code 0} octal, {@code 0b} binary.
         */
        static Optional<BigInteger> goInteger(String text) {
            String s = text.replace("_", "");
            boolean negative = false;
            if (s.startsWith("-") || s.startsWith("+")) {
                negative = s.startsWith("-");
                s = s.substring(1);
            }
            if (s.isEmpty()) {
                return Optional.empty();
            }
            int radix = 10;
            String digits = s;
            if (s.length() > 1 && s.charAt(0) == '0') {
                char marker = s.charAt(1);
                if (marker == 'x' || marker == 'X') {
                    radix = 16;
                    digits = s.substring(2);
                } else if (marker == 'b' || marker == 'B') {
                    radix = 2;
                    digits = s.substring(2);
                } else if (marker == 'o' || marker == 'O') {
                    radix = 8;
                    digits = s.substring(2);
                } else {
                    radix = 8;
                    digits = s.substring(1);
                }
            }
            if (digits.isEmpty() || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0 && c < 128)) {
                return Optional.empty();
            }
            try {
                BigInteger value = new BigInteger(digits, radix);
                value = negative ? value.negate() : value;
                // int64 or uint64, as go-yaml tries both
                if (value.bitLength() > 64 || (negative && value.bitLength() > 63)) {
                    return Optional.empty();
                }
                return Optional.of(value);
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }

        @Override
        public String render() {
            return text;
        }

        @Override
        public String kindName() {
            return switch (kind) {
                case NULL -> "null";
                case BOOL -> "a boolean";
                case INT -> "an integer";
                case FLOAT -> "a number";
                case STRING -> "a string";
            };
        }
    }

    record Sequence(List<YamlNode> items) implements YamlNode {
        public Sequence {
            items = List.copyOf(items);
        }

        @Override
        public String render() {
            return items.stream().map(YamlNode::render).collect(Collectors.joining(", ", "[", "]"));
        }

        @Override
        public String kindName() {
            return "a list";
        }
    }

    record Entry(String key, YamlNode value) {
    }

    record Mapping(List<Entry> entries) implements YamlNode {
        public Mapping {
            entries = List.copyOf(entries);
        }

        @Override
        public String render() {
            return entries.stream().map(e -> e.key() + ": " + e.value().render())
                    .collect(Collectors.joining(", ", "{", "}"));
        }

        @Override
        public String kindName() {
            return "a mapping";
        }
    }
}
