package dev.kgpu.sim.prometheus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser of Prometheus text format 0.0.4 as dcgm-exporter writes it, for tests: every sample must
 * follow its family's {@code # HELP} and {@code # TYPE}, a family appears once, labels keep their order,
 * and no sample has a timestamp. Anything else fails with the line number.
 */
public final class ExpositionParser {

    /** One sample: labels in written order, and the value as written. */
    public record Sample(String name, LinkedHashMap<String, String> labels, String value) {

        public List<String> labelNames() {
            return List.copyOf(labels.keySet());
        }

        public String label(String name) {
            return labels.get(name);
        }
    }

    /** One family: its help, type and samples. */
    public record Family(String name, String help, String type, List<Sample> samples) {
    }

    private ExpositionParser() {
    }

    /** The families in written order, by name. */
    public static Map<String, Family> parse(String text) {
        Map<String, Family> families = new LinkedHashMap<>();
        String help = null;
        String helpName = null;
        Family current = null;
        String[] lines = text.split("\n", -1);
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new AssertionError("the exposition does not end with a newline");
        }
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int number = i + 1;
            if (line.isEmpty()) {
                if (i != lines.length - 1) {
                    throw new AssertionError("line " + number + " is empty");
                }
                continue;
            }
            if (line.startsWith("# HELP ")) {
                String rest = line.substring(7);
                int space = rest.indexOf(' ');
                helpName = rest.substring(0, space);
                help = unescapeHelp(rest.substring(space + 1));
                if (families.containsKey(helpName)) {
                    throw new AssertionError("line " + number + ": family " + helpName + " appears twice");
                }
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.substring(7).split(" ");
                if (parts.length != 2 || !parts[0].equals(helpName)) {
                    throw new AssertionError("line " + number + ": TYPE '" + line + "' does not follow its HELP");
                }
                current = new Family(parts[0], help, parts[1], new ArrayList<>());
                families.put(current.name, current);
                continue;
            }
            if (line.startsWith("#")) {
                throw new AssertionError("line " + number + ": unexpected comment '" + line + "'");
            }
            Sample sample = parseSample(line, number);
            if (current == null || !current.name.equals(sample.name)) {
                throw new AssertionError("line " + number + ": sample " + sample.name + " outside its family");
            }
            current.samples.add(sample);
        }
        return families;
    }

    private static Sample parseSample(String line, int number) {
        int brace = line.indexOf('{');
        if (brace < 0) {
            String[] parts = line.split(" ");
            if (parts.length != 2) {
                throw new AssertionError("line " + number + ": '" + line + "' is not 'name value'");
            }
            return new Sample(parts[0], new LinkedHashMap<>(), parts[1]);
        }
        String name = line.substring(0, brace);
        LinkedHashMap<String, String> labels = new LinkedHashMap<>();
        int i = brace + 1;
        while (line.charAt(i) != '}') {
            int eq = line.indexOf('=', i);
            String key = line.substring(i, eq);
            if (!key.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
                throw new AssertionError("line " + number + ": bad label name '" + key + "'");
            }
            if (line.charAt(eq + 1) != '"') {
                throw new AssertionError("line " + number + ": label " + key + " is not quoted");
            }
            StringBuilder value = new StringBuilder();
            int j = eq + 2;
            while (line.charAt(j) != '"') {
                char c = line.charAt(j);
                if (c == '\\') {
                    char next = line.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
                j++;
            }
            if (labels.put(key, value.toString()) != null) {
                throw new AssertionError("line " + number + ": label " + key + " given twice");
            }
            i = j + 1;
            if (line.charAt(i) == ',') {
                i++;
            }
        }
        String rest = line.substring(i + 1);
        if (!rest.startsWith(" ") || rest.strip().contains(" ")) {
            throw new AssertionError("line " + number + ": '" + rest + "' is not one value (timestamps are not written)");
        }
        String value = rest.substring(1);
        try {
            Double.parseDouble(value.replace("+Inf", "Infinity").replace("-Inf", "-Infinity"));
        } catch (NumberFormatException e) {
            throw new AssertionError("line " + number + ": value '" + value + "' is no number");
        }
        return new Sample(name, labels, value);
    }

    private static String unescapeHelp(String help) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < help.length(); i++) {
            char c = help.charAt(i);
            if (c == '\\' && i + 1 < help.length()) {
                char next = help.charAt(++i);
                out.append(next == 'n' ? '\n' : next);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
