package dev.kgpu.exporter.counters;

import dev.kgpu.config.ValidationFailure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a counters file in dcgm-exporter's format: one row per line, {@code DCGM field, Prometheus type,
 * help message}; a line whose first non-blank character is {@code #} is a comment; blank lines are
 * skipped; blanks around each field are trimmed; a field may be double-quoted (RFC 4180) to hold a comma.
 *
 * <p>A row with other than exactly 3 fields, an unknown type, a name DCGM does not know, or a name given
 * twice stops the exporter with one message naming the file, the line and its content. A real DCGM field
 * kgpu cannot read from NVML is kept in {@link CounterSet#notServed()} for one warning.
 */
public final class CountersFile {

    /** The built-in files, shipped in the jar beside this class. */
    public static final List<String> BUILT_IN = List.of("default-counters.csv", "dcp-metrics-included.csv");

    private CountersFile() {
    }

    public static CounterSet read(Path path) {
        String text;
        try {
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CountersException(new ValidationFailure("counters file", path.toString(),
                    "could not be read: " + e.getMessage()), e);
        }
        return parse(path.toString(), text);
    }

    public static CounterSet readBuiltIn(String name) {
        if (!BUILT_IN.contains(name)) {
            throw new CountersException(new ValidationFailure("built-in counters file", name, "must be one of " + BUILT_IN));
        }
        try (InputStream in = CountersFile.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new CountersException(new ValidationFailure("built-in counters file", name, "is missing from the jar"));
            }
            return parse("built-in " + name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new CountersException(new ValidationFailure("built-in counters file", name, "could not be read"), e);
        }
    }

    /** Parses {@code text}; {@code source} names it in messages. */
    public static CounterSet parse(String source, String text) {
        DcgmFieldCatalog catalog = DcgmFieldCatalog.get();
        List<Counter> metrics = new ArrayList<>();
        List<Counter> labels = new ArrayList<>();
        List<Counter> notServed = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNumber = i + 1;
            String line = lines[i];
            String stripped = line.strip();
            if (stripped.isEmpty() || stripped.startsWith("#")) {
                continue;
            }
            String where = "counters file '" + source + "' line " + lineNumber;
            List<String> fields = splitFields(line, where);
            if (fields.size() != 3) {
                throw bad(where, line, "has " + fields.size() + " field" + (fields.size() == 1 ? "" : "s")
                        + " and a row needs exactly 3 fields (DCGM field, Prometheus type, help message)");
            }
            String name = fields.get(0);
            MetricType type = MetricType.fromWord(fields.get(1));
            if (type == null) {
                throw bad(where, line, "names type '" + fields.get(1)
                        + "', which is not one of gauge, counter, histogram, summary, label");
            }
            Integer first = seen.putIfAbsent(name, lineNumber);
            if (first != null) {
                throw bad(where, line, "names " + name + " a second time (first on line " + first + ")");
            }
            Counter counter = new Counter(name, type, fields.get(2), lineNumber);
            ExporterField exporterField = ExporterField.named(name);
            if (exporterField != null) {
                if (!exporterField.served()) {
                    notServed.add(counter);
                } else if (type == MetricType.LABEL) {
                    throw bad(where, line, "makes " + name + " a label, but it is a series of its own");
                } else {
                    metrics.add(counter);
                }
                continue;
            }
            if (catalog.id(name).isEmpty()) {
                throw bad(where, line, "names no counter: '" + name
                        + "' is no DCGM field and no DCGM_EXP_* series (could not find DCGM field)");
            }
            boolean served = type == MetricType.LABEL
                    ? ServedFields.LABELS.contains(name) : ServedFields.METRICS.contains(name);
            if (!served) {
                notServed.add(counter);
            } else if (type == MetricType.LABEL) {
                labels.add(counter);
            } else {
                metrics.add(counter);
            }
        }
        return new CounterSet(source, metrics, labels, notServed);
    }

    private static CountersException bad(String where, String line, String reason) {
        return new CountersException(new ValidationFailure(where, line, reason));
    }

    /** Splits one row at commas outside double quotes; trims blanks around each field. */
    static List<String> splitFields(String line, String where) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        int i = 0;
        int n = line.length();
        while (true) {
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                i++;
            }
            field.setLength(0);
            if (i < n && line.charAt(i) == '"') {
                i++;
                boolean closed = false;
                while (i < n) {
                    char c = line.charAt(i++);
                    if (c == '"') {
                        if (i < n && line.charAt(i) == '"') {
                            field.append('"');
                            i++;
                        } else {
                            closed = true;
                            break;
                        }
                    } else {
                        field.append(c);
                    }
                }
                if (!closed) {
                    throw bad(where, line, "leaves a quoted field open");
                }
                while (i < n && line.charAt(i) != ',') {
                    if (line.charAt(i) != ' ' && line.charAt(i) != '\t') {
                        throw bad(where, line, "has text after a quoted field before the next comma");
                    }
                    i++;
                }
                fields.add(field.toString());
            } else {
                int start = i;
                while (i < n && line.charAt(i) != ',') {
                    i++;
                }
                fields.add(line.substring(start, i).strip());
            }
            if (i >= n) {
                return fields;
            }
            i++; // the comma
        }
    }
}
