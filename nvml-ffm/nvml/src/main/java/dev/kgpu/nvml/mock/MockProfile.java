package dev.kgpu.nvml.mock;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A mock NVML profile as the mock library reads it, so tests can compare what kgpu reports through NVML
 * with what the simulated node was told to be. GPU entries are resolved like the mock resolves them: an
 * entry with {@code "repeat": n} stands for n GPUs whose {@code {i...}} templates are filled in with the
 * GPU's position, and the entry's fields are laid over (deep-merged onto) its {@code "model"}.
 *
 * <p>Values keep their JSON shapes: objects are maps, arrays lists, numbers {@link BigDecimal}; use
 * {@link #value}, {@link #string} and {@link #number} with dotted paths such as {@code "pci.busId"}.
 *
 * <p>Thread-safety: immutable.
 */
public final class MockProfile {

    private static final Pattern TEMPLATE = Pattern.compile("\\{([^{}:]+)(?::([^{}]*))?}");

    private final String name;
    private final Map<String, Object> root;
    private final List<Map<String, Object>> gpus;

    private MockProfile(String name, Map<String, Object> root, List<Map<String, Object>> gpus) {
        this.name = name;
        this.root = root;
        this.gpus = gpus;
    }

    /** Parses profile JSON; {@code name} only labels errors. */
    @SuppressWarnings("unchecked")
    public static MockProfile parse(String name, String json) {
        Map<String, Object> root = (Map<String, Object>) Json.parse(json);
        Map<String, Object> models = (Map<String, Object>) root.getOrDefault("models", Map.of());
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (Object entry : (List<Object>) root.get("gpus")) {
            Map<String, Object> gpu = (Map<String, Object>) entry;
            int repeat = gpu.containsKey("repeat") ? ((BigDecimal) gpu.get("repeat")).intValueExact() : 1;
            for (int copy = 0; copy < repeat; copy++) {
                int i = gpus.size();
                Map<String, Object> filled = gpu.containsKey("repeat") ? (Map<String, Object>) fill(gpu, i) : gpu;
                Object modelName = filled.get("model");
                Map<String, Object> model = modelName == null ? Map.of() : (Map<String, Object>) models.get(modelName);
                if (model == null) {
                    throw new IllegalArgumentException("profile " + name + " GPU " + i + " names model '" + modelName
                            + "' but the profile has no such model");
                }
                Map<String, Object> resolved = merge(model, filled);
                resolved.remove("repeat");
                gpus.add(resolved);
            }
        }
        return new MockProfile(name, root, List.copyOf(gpus));
    }

    public String name() {
        return name;
    }

    /** The whole parsed file. */
    public Map<String, Object> root() {
        return root;
    }

    /** Every simulated GPU, in NVML index order, with its model's values merged in. */
    public List<Map<String, Object>> gpus() {
        return gpus;
    }

    /** The GPU at {@code index}. */
    public Map<String, Object> gpu(int index) {
        return gpus.get(index);
    }

    /** {@code system.driverVersion} and friends. */
    public Object system(String path) {
        return value(root, "system." + path).orElseThrow();
    }

    /** The value at a dotted path (list elements by number), or empty when absent or JSON null. */
    @SuppressWarnings("unchecked")
    public static Optional<Object> value(Map<String, Object> map, String path) {
        Object at = map;
        for (String key : path.split("\\.")) {
            if (at instanceof Map<?, ?> object) {
                at = ((Map<String, Object>) object).get(key);
            } else if (at instanceof List<?> list && key.chars().allMatch(Character::isDigit)) {
                int index = Integer.parseInt(key);
                at = index < list.size() ? list.get(index) : null;
            } else {
                return Optional.empty();
            }
            if (at == null) {
                return Optional.empty();
            }
        }
        return Optional.of(at);
    }

    /** A string value; numbers are rendered without exponent. */
    public static String string(Map<String, Object> map, String path) {
        Object value = value(map, path).orElseThrow(() -> new IllegalArgumentException("no value at '" + path + "'"));
        return value instanceof BigDecimal number ? number.toPlainString() : value.toString();
    }

    /**
     * A number: a JSON number, a numeric string such as a filled-in template, or the {@code value} of a
     * walking value ({@code {"value": 41, "min": 35, "max": 83}}).
     */
    public static BigDecimal number(Map<String, Object> map, String path) {
        Object value = value(map, path).orElseThrow(() -> new IllegalArgumentException("no value at '" + path + "'"));
        if (value instanceof Map<?, ?> walking && walking.get("value") instanceof BigDecimal start) {
            return start;
        }
        if (value instanceof String text) {
            return text.startsWith("0x") || text.startsWith("0X")
                    ? new BigDecimal(Long.parseLong(text.substring(2), 16)) : new BigDecimal(text);
        }
        return (BigDecimal) value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> over) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        for (Map.Entry<String, Object> entry : over.entrySet()) {
            Object below = out.get(entry.getKey());
            if (below instanceof Map<?, ?> belowMap && entry.getValue() instanceof Map<?, ?> overMap) {
                out.put(entry.getKey(), merge((Map<String, Object>) belowMap, (Map<String, Object>) overMap));
            } else {
                out.put(entry.getKey(), entry.getValue());
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Object fill(Object value, int i) {
        if (value instanceof String text) {
            return fillString(text, i);
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) map).forEach((key, inner) -> out.put(key, fill(inner, i)));
            return out;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(inner -> fill(inner, i)).toList();
        }
        return value;
    }

    /** {@code {expr}} or {@code {expr:spec}} with {@code i}, integers and {@code + - * / %}; spec like {@code 04X}. */
    static String fillString(String text, int i) {
        Matcher matcher = TEMPLATE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            long value = new Expression(matcher.group(1), i).evaluate();
            String spec = matcher.group(2);
            String formatted;
            if (spec == null || spec.isEmpty()) {
                formatted = Long.toString(value);
            } else {
                char kind = spec.charAt(spec.length() - 1);
                String width = spec.substring(0, spec.length() - 1);
                String javaKind = switch (kind) {
                    case 'x', 'X', 'd' -> String.valueOf(kind);
                    default -> throw new IllegalArgumentException("template format '" + spec + "' in '" + text
                            + "' but it must end in d, x or X");
                };
                formatted = String.format("%" + width + javaKind, value);
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(formatted));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    /**
     * Integer arithmetic over {@code i} as the mock's templates have it: {@code i} or a number, then any
     * number of {@code + - * / %} with a number, applied left to right.
     */
    private static final class Expression {
        private final String text;
        private final long i;
        private int at;

        Expression(String text, long i) {
            this.text = text.replace(" ", "");
            this.i = i;
        }

        long evaluate() {
            long value = operand();
            while (at < text.length()) {
                char op = text.charAt(at++);
                long right = operand();
                value = switch (op) {
                    case '+' -> value + right;
                    case '-' -> value - right;
                    case '*' -> value * right;
                    case '/' -> value / right;
                    case '%' -> value % right;
                    default -> throw new IllegalArgumentException("template expression '" + text
                            + "' has operator '" + op + "' but it must be one of + - * / %");
                };
            }
            return value;
        }

        private long operand() {
            if (at < text.length() && text.charAt(at) == 'i') {
                at++;
                return i;
            }
            int start = at;
            while (at < text.length() && Character.isDigit(text.charAt(at))) {
                at++;
            }
            if (start == at) {
                throw new IllegalArgumentException("template expression '" + text + "' needs a number or i at " + at);
            }
            return Long.parseLong(text.substring(start, at));
        }
    }

    @Override
    public String toString() {
        return "mock profile " + name + " (" + gpus.size() + " GPUs)";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MockProfile profile && profile.name.equals(name) && profile.root.equals(root);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, root);
    }
}
