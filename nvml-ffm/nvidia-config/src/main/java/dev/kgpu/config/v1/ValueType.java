package dev.kgpu.config.v1;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * How one setting's value is read from a command-line flag or environment variable ({@link #fromText})
 * and from the config file (package-private {@code fromYaml}), and printed back ({@link #format}).
 * Every conversion failure is an {@link IllegalArgumentException} whose message is the reason, worded
 * to follow "{@code <property> was '<value>' but it}": "must be one of none, single, mixed".
 *
 * <p>Instances are immutable and thread-safe.
 *
 * @param <T> the Java type of the value
 */
public abstract class ValueType<T> {

    private static final Pattern DNS_SUBDOMAIN = Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    ValueType() {
    }

    /** What a value looks like, for usage text: {@code none|single|mixed}, {@code bool}, {@code path}. */
    public abstract String describe();

    /** Reads a flag's or environment variable's text. */
    public abstract T fromText(String text);

    /**
     * Reads every occurrence of a repeated flag: the last one wins, except for lists, which gather all
     * (as NVIDIA's flag library does).
     */
    public T fromTexts(List<String> occurrences) {
        return fromText(occurrences.getLast());
    }

    /** Reads a config-file value; never called with a YAML null (the decoder treats null as absent). */
    abstract T fromYaml(YamlNode node);

    /** The value as NVIDIA prints it, for usage text and messages. */
    public abstract String format(T value);

    /** Go's {@code strconv.ParseBool} on the command line and in the environment; a YAML boolean in the file. */
    public static ValueType<Boolean> bool() {
        return new ValueType<>() {
            @Override
            public String describe() {
                return "bool";
            }

            @Override
            public Boolean fromText(String text) {
                return GoBool.parse(text).orElseThrow(() -> new IllegalArgumentException(
                        "must be a boolean: " + GoBool.ACCEPTED));
            }

            @Override
            Boolean fromYaml(YamlNode node) {
                if (node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Kind.BOOL) {
                    return scalar.booleanValue();
                }
                if (node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Kind.STRING
                        && GoBool.parse(scalar.text()).isPresent()) {
                    throw new IllegalArgumentException("must be a boolean, not a quoted string; write it without quotes");
                }
                throw new IllegalArgumentException("must be a boolean (true or false), not " + node.kindName());
            }

            @Override
            public String format(Boolean value) {
                return value.toString();
            }
        };
    }

    /** Any string. */
    public static ValueType<String> string() {
        return new StringType<String>("string") {
            @Override
            String check(String text) {
                return text;
            }
        };
    }

    /** An absolute path; empty is refused. */
    public static ValueType<String> absolutePath() {
        return new StringType<String>("path") {
            @Override
            String check(String text) {
                if (!text.startsWith("/")) {
                    throw new IllegalArgumentException("must be an absolute path");
                }
                return text;
            }
        };
    }

    /** An absolute path, or empty for "none". */
    public static ValueType<String> optionalAbsolutePath() {
        return new StringType<String>("path") {
            @Override
            String check(String text) {
                if (!text.isEmpty() && !text.startsWith("/")) {
                    throw new IllegalArgumentException("must be an absolute path (or empty for none)");
                }
                return text;
            }
        };
    }

    /** A CDI annotation prefix: a DNS subdomain followed by {@code /}, such as {@code cdi.k8s.io/}. */
    public static ValueType<String> cdiAnnotationPrefix() {
        return new StringType<String>("prefix") {
            @Override
            String check(String text) {
                if (!text.endsWith("/") || !DNS_SUBDOMAIN.matcher(text.substring(0, text.length() - 1)).matches()) {
                    throw new IllegalArgumentException(
                            "must be a DNS subdomain followed by '/', such as cdi.k8s.io/, to make valid annotation keys");
                }
                return text;
            }
        };
    }

    /**
     * A Kubernetes object name (a DNS subdomain: lower-case letters, digits, '-' and '.', at most 253
     * characters), or empty for "not set".
     */
    public static ValueType<String> kubernetesName() {
        return new StringType<String>("name") {
            @Override
            String check(String text) {
                if (!text.isEmpty() && (text.length() > 253 || !DNS_SUBDOMAIN.matcher(text).matches())) {
                    throw new IllegalArgumentException("must be a Kubernetes name: at most 253 lower-case letters,"
                            + " digits, '-' and '.', starting and ending with a letter or digit");
                }
                return text;
            }
        };
    }

    /** One of {@code allowed}, spelled as {@link WireValue#wireName()}, case-sensitive as in NVIDIA. */
    @SafeVarargs
    public static <E extends Enum<E> & WireValue> ValueType<E> oneOf(E... allowed) {
        List<E> values = List.of(allowed);
        String choices = values.stream().map(WireValue::wireName).collect(Collectors.joining(", "));
        return new StringType<E>(values.stream().map(WireValue::wireName).collect(Collectors.joining("|"))) {
            @Override
            E check(String text) {
                return values.stream().filter(v -> v.wireName().equals(text)).findFirst().orElseThrow(
                        () -> new IllegalArgumentException("must be one of " + choices));
            }

            @Override
            public String format(E value) {
                return value.wireName();
            }
        };
    }

    /** Every constant of {@code type}. */
    public static <E extends Enum<E> & WireValue> ValueType<E> oneOf(Class<E> type) {
        E[] constants = type.getEnumConstants();
        return oneOf(constants);
    }

    /**
     * A set of {@code type} constants: a comma-separated list on the command line and in the
     * environment (repeated flags add up); a string or a list of strings in the file.
     */
    public static <E extends Enum<E> & WireValue> ValueType<Set<E>> setOf(Class<E> type) {
        ValueType<E> element = oneOf(type);
        String choices = Arrays.stream(type.getEnumConstants()).map(WireValue::wireName).collect(Collectors.joining(", "));
        return new ValueType<>() {
            @Override
            public String describe() {
                return element.describe() + "[,...]";
            }

            @Override
            public Set<E> fromText(String text) {
                return fromTexts(List.of(text));
            }

            @Override
            public Set<E> fromTexts(List<String> occurrences) {
                List<String> items = new ArrayList<>();
                for (String occurrence : occurrences) {
                    for (String item : occurrence.split(",", -1)) {
                        items.add(item.strip());
                    }
                }
                return collect(items);
            }

            @Override
            Set<E> fromYaml(YamlNode node) {
                return switch (node) {
                    case YamlNode.Scalar scalar -> collect(List.of(scalar.text()));
                    case YamlNode.Sequence sequence -> {
                        List<String> items = new ArrayList<>();
                        for (YamlNode item : sequence.items()) {
                            if (!(item instanceof YamlNode.Scalar scalar) || scalar.kind() == YamlNode.Kind.NULL) {
                                throw new IllegalArgumentException("must be a string or a list of strings, but holds "
                                        + item.kindName());
                            }
                            items.add(scalar.text());
                        }
                        yield collect(items);
                    }
                    case YamlNode.Mapping mapping -> throw new IllegalArgumentException(
                            "must be a string or a list of strings, not a mapping");
                };
            }

            private Set<E> collect(List<String> items) {
                if (items.isEmpty()) {
                    throw new IllegalArgumentException("must name at least one of " + choices);
                }
                Set<E> result = EnumSet.noneOf(type);
                for (String item : items) {
                    try {
                        result.add(element.fromText(item));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("must list only " + choices + ", but lists '" + item + "'");
                    }
                }
                return Set.copyOf(result);
            }

            @Override
            public String format(Set<E> value) {
                return EnumSet.copyOf(value).stream().map(WireValue::wireName).collect(Collectors.joining(","));
            }
        };
    }

    /** A list of strings: comma-separated on the command line and in the environment. */
    public static ValueType<List<String>> stringList() {
        return new ValueType<>() {
            @Override
            public String describe() {
                return "string[,...]";
            }

            @Override
            public List<String> fromText(String text) {
                return fromTexts(List.of(text));
            }

            @Override
            public List<String> fromTexts(List<String> occurrences) {
                List<String> items = new ArrayList<>();
                for (String occurrence : occurrences) {
                    for (String item : occurrence.split(",", -1)) {
                        if (!item.isBlank()) {
                            items.add(item.strip());
                        }
                    }
                }
                return List.copyOf(items);
            }

            @Override
            List<String> fromYaml(YamlNode node) {
                if (!(node instanceof YamlNode.Sequence sequence)) {
                    throw new IllegalArgumentException("must be a list of strings, not " + node.kindName());
                }
                List<String> items = new ArrayList<>();
                for (YamlNode item : sequence.items()) {
                    if (!(item instanceof YamlNode.Scalar scalar) || scalar.kind() == YamlNode.Kind.NULL) {
                        throw new IllegalArgumentException("must be a list of strings, but holds " + item.kindName());
                    }
                    items.add(scalar.text());
                }
                return List.copyOf(items);
            }

            @Override
            public String format(List<String> value) {
                return String.join(",", value);
            }
        };
    }

    /**
     * IMEX channel IDs: {@code []} or {@code [0]}, the only values NVIDIA accepts; comma-separated
     * integers on the command line, a list of integers in the file.
     */
    public static ValueType<List<Integer>> imexChannelIds() {
        return new ValueType<>() {
            @Override
            public String describe() {
                return "int[,...]";
            }

            @Override
            public List<Integer> fromText(String text) {
                return fromTexts(List.of(text));
            }

            @Override
            public List<Integer> fromTexts(List<String> occurrences) {
                List<Integer> ids = new ArrayList<>();
                for (String occurrence : occurrences) {
                    for (String item : occurrence.split(",", -1)) {
                        Optional<Integer> id = YamlNode.Scalar.goInteger(item.strip())
                                .filter(v -> v.bitLength() < 32).map(v -> v.intValue());
                        ids.add(id.orElseThrow(() -> new IllegalArgumentException(
                                "must be a comma-separated list of integers, but lists '" + item.strip() + "'")));
                    }
                }
                return check(ids);
            }

            @Override
            List<Integer> fromYaml(YamlNode node) {
                if (!(node instanceof YamlNode.Sequence sequence)) {
                    throw new IllegalArgumentException("must be a list of integers, not " + node.kindName());
                }
                List<Integer> ids = new ArrayList<>();
                for (YamlNode item : sequence.items()) {
                    ids.add(intValue(item, "must be a list of integers"));
                }
                return check(ids);
            }

            private List<Integer> check(List<Integer> ids) {
                if (!(ids.isEmpty() || ids.equals(List.of(0)))) {
                    throw new IllegalArgumentException("must be [] or [0], the only IMEX channels supported");
                }
                return List.copyOf(ids);
            }

            @Override
            public String format(List<Integer> value) {
                return value.stream().map(String::valueOf).collect(Collectors.joining(","));
            }
        };
    }

    /**
     * {@code infinite} or a Go duration. In the file a bare YAML number is a count of nanoseconds, as NVIDIA's
     * decoder reads it (a JSON number becomes {@code time.Duration(n)}: {@code 5} is 5ns, {@code 1.9} is 1ns).
     */
    public static ValueType<SleepInterval> sleepInterval() {
        return new ValueType<>() {
            @Override
            public String describe() {
                return "duration|infinite";
            }

            @Override
            public SleepInterval fromText(String text) {
                return SleepInterval.parse(text);
            }

            @Override
            SleepInterval fromYaml(YamlNode node) {
                if (node instanceof YamlNode.Scalar scalar) {
                    if (scalar.kind() == YamlNode.Kind.INT || scalar.kind() == YamlNode.Kind.FLOAT) {
                        return new SleepInterval.Every(Duration.ofNanos(goNanoseconds(scalar)));
                    }
                    return SleepInterval.parse(scalar.text());
                }
                throw new IllegalArgumentException("must be a Go duration such as 60s, or 'infinite', not " + node.kindName());
            }

            @Override
            public String format(SleepInterval value) {
                return value.goString();
            }
        };
    }

    /**
     * A YAML number as NVIDIA's duration decoder reads it: Go's JSON decoder makes it a {@code float64}, and
     * {@code time.Duration(value)} truncates that toward zero, in nanoseconds.
     */
    private static long goNanoseconds(YamlNode.Scalar scalar) {
        double value;
        try {
            value = Double.parseDouble(scalar.kind() == YamlNode.Kind.INT
                    ? YamlNode.Scalar.goInteger(scalar.text()).orElseThrow().toString() : scalar.text().replace("_", ""));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("must be a Go duration such as 60s, a number of nanoseconds, or 'infinite'");
        }
        if (!Double.isFinite(value) || Math.abs(value) >= 0x1p63) {
            throw new IllegalArgumentException("must be a number of nanoseconds that fits in 64 bits, or a Go duration"
                    + " such as 60s, or 'infinite'");
        }
        return (long) value;
    }

    /** A positive integer. */
    public static ValueType<Integer> positiveInt() {
        return new StringType<Integer>("int") {
            @Override
            Integer check(String text) {
                Optional<Integer> value = YamlNode.Scalar.goInteger(text).filter(v -> v.bitLength() < 32)
                        .map(v -> v.intValue()).filter(v -> v > 0);
                return value.orElseThrow(() -> new IllegalArgumentException("must be a positive integer"));
            }

            @Override
            public String format(Integer value) {
                return value.toString();
            }
        };
    }

    /** A positive, finite decimal number (Go's {@code strconv.ParseFloat} syntax without hex or inf). */
    public static ValueType<Double> positiveNumber() {
        return new StringType<Double>("float") {
            private static final Pattern DECIMAL = Pattern.compile("[+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");

            @Override
            Double check(String text) {
                if (!DECIMAL.matcher(text).matches()) {
                    throw new IllegalArgumentException("must be a positive number");
                }
                double value = Double.parseDouble(text);
                if (!(value > 0) || Double.isInfinite(value)) {
                    throw new IllegalArgumentException("must be a positive number");
                }
                return value;
            }

            @Override
            public String format(Double value) {
                return value.toString();
            }
        };
    }

    /**
     * A whole number from {@code min} to {@code max} (Go's integer syntax), such as a number of tries.
     *
     * @param unit what it counts, for the reason: "must be a whole number of seconds from 1 to 300"; empty
     *             for none
     */
    public static ValueType<Integer> wholeNumber(int min, int max, String unit) {
        String of = unit.isEmpty() ? "" : " of " + unit;
        String reason = max == Integer.MAX_VALUE && min == Integer.MIN_VALUE ? "must be a whole number" + of
                : max == Integer.MAX_VALUE && min == 1 ? "must be a positive whole number" + of
                : max == Integer.MAX_VALUE ? "must be a whole number" + of + ", at least " + min
                : "must be a whole number" + of + " from " + min + " to " + max;
        return new StringType<Integer>("int") {
            @Override
            Integer check(String text) {
                return YamlNode.Scalar.goInteger(text).filter(v -> v.bitLength() < 32).map(v -> v.intValue())
                        .filter(v -> v >= min && v <= max)
                        .orElseThrow(() -> new IllegalArgumentException(reason));
            }

            @Override
            public String format(Integer value) {
                return value.toString();
            }
        };
    }

    /**
     * A positive duration written as a whole number of {@code unit}s, as dcgm-exporter's and the GPU
     * operator's flags take them ({@code DCGM_EXPORTER_INTERVAL=30000} milliseconds), at most {@code max}.
     */
    public static ValueType<Duration> duration(ChronoUnit unit, int min, int max) {
        String unitName = switch (unit) {
            case MILLIS -> "milliseconds";
            case MICROS -> "microseconds";
            case NANOS -> "nanoseconds";
            default -> unit.toString().toLowerCase(Locale.ROOT);
        };
        ValueType<Integer> amount = wholeNumber(min, max, unitName);
        return new StringType<Duration>(amount.describe()) {
            @Override
            Duration check(String text) {
                return Duration.of(amount.fromText(text), unit);
            }

            @Override
            public String format(Duration value) {
                return Long.toString(value.toNanos() / unit.getDuration().toNanos());
            }
        };
    }

    /**
     * A value of an agent's own kind, read by {@code parse}, which throws {@link IllegalArgumentException}
     * with the reason ("must be [host]:port"), and printed by {@code format}.
     *
     * @param description what a value looks like, for usage text: {@code [host]:port}
     */
    public static <T> ValueType<T> of(String description, Function<String, T> parse,
                                      Function<T, String> format) {
        return new StringType<T>(description) {
            @Override
            T check(String text) {
                return parse.apply(text);
            }

            @Override
            public String format(T value) {
                return format.apply(value);
            }
        };
    }

    /**
     * {@code type}, or nothing: an empty or blank text is {@link Optional#empty()}, anything else must be a
     * {@code type}. For settings whose absence means something ({@code KGPU_CDI_SPEC_DIR}: no check).
     */
    public static <T> ValueType<Optional<T>> optional(ValueType<T> type) {
        return new ValueType<>() {
            @Override
            public String describe() {
                return type.describe();
            }

            @Override
            public Optional<T> fromText(String text) {
                return text.isBlank() ? Optional.empty() : Optional.of(type.fromText(text));
            }

            @Override
            Optional<T> fromYaml(YamlNode node) {
                return Optional.of(type.fromYaml(node));
            }

            @Override
            public String format(Optional<T> value) {
                return value.map(type::format).orElse("");
            }
        };
    }

    static int intValue(YamlNode node, String reason) {
        if (node instanceof YamlNode.Scalar scalar) {
            Optional<Long> value = scalar.longValue().or(() -> integralFloat(scalar));
            if (value.isPresent() && value.get() >= Integer.MIN_VALUE && value.get() <= Integer.MAX_VALUE) {
                return value.get().intValue();
            }
            if (scalar.kind() == YamlNode.Kind.STRING && YamlNode.Scalar.goInteger(scalar.text()).isPresent()) {
                throw new IllegalArgumentException(reason + ", not a quoted string; write it without quotes");
            }
            if (scalar.kind() == YamlNode.Kind.INT) {
                throw new IllegalArgumentException(reason + " that fits in 32 bits");
            }
        }
        throw new IllegalArgumentException(reason + ", not " + node.kindName());
    }

    /**
     * A YAML float that NVIDIA's decoder reads as an integer: {@code sigs.k8s.io/yaml} turns the YAML into JSON,
     * where a whole float such as {@code 2.0} is written {@code 2} (Go's shortest {@code 'g'} format, in plain
     * digits below 1e6), which Go's JSON decoder takes for an {@code int}. So {@code devices: 2.0} and
     * {@code replicas: 4.0} are accepted as NVIDIA's plugin accepts them.
     */
    static Optional<Long> integralFloat(YamlNode.Scalar scalar) {
        if (scalar.kind() != YamlNode.Kind.FLOAT) {
            return Optional.empty();
        }
        try {
            double value = Double.parseDouble(scalar.text().replace("_", ""));
            return value == Math.rint(value) && Math.abs(value) < 1e6 ? Optional.of((long) value) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty(); // .inf, .nan
        }
    }

    /** A type whose text form is one scalar string; the file accepts any non-null scalar's text. */
    private abstract static class StringType<T> extends ValueType<T> {
        private final String description;

        StringType(String description) {
            this.description = description;
        }

        abstract T check(String text);

        @Override
        public String describe() {
            return description;
        }

        @Override
        public T fromText(String text) {
            return check(text);
        }

        @Override
        T fromYaml(YamlNode node) {
            if (node instanceof YamlNode.Scalar scalar) {
                return check(scalar.text());
            }
            throw new IllegalArgumentException("must be a " + description + ", not " + node.kindName());
        }

        @Override
        public String format(T value) {
            return String.valueOf(value);
        }
    }
}
