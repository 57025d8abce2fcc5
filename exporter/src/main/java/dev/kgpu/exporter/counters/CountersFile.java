package dev.kgpu.exporter.counters;

import dev.kgpu.config.BoundedFile;
import dev.kgpu.config.ValidationFailure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a counters file in dcgm-exporter's format: one row per line, {@code DCGM field, Prometheus type,
 * help message}; a line whose first non-blank character is {@code #} is a comment; blank lines are
 * skipped; blanks around each field are trimmed; a field may be double-quoted (RFC 4180) to hold a comma.
 *
 * <p>Names are dcgm-exporter's: DCGM fields ({@code DCGM_FI_DEV_SM_CLOCK}, DCGM 4.7's names too), its own
 * {@code DCGM_EXP_*} series, and the 1.x names of {@code etc/1.x-compatibility-metrics.csv}
 * ({@code dcgm_sm_clock}), which read the DCGM field of the same id and keep their own metric name.
 *
 * <p>A row with other than exactly 3 fields, an unknown type, or a name DCGM does not know, and a file with
 * no rows at all, stop the exporter with one message naming the file, the line and its content. A real DCGM
 * field kgpu cannot read from NVML is kept in {@link CounterSet#notServed()}, and a row naming a counter a
 * second time (dcgm-exporter's own 1.x file does) in {@link CounterSet#duplicates()}, each for one warning.
 */
public final class CountersFile {

    /** The built-in files, shipped in the jar beside this class. */
    public static final List<String> BUILT_IN = List.of("default-counters.csv", "dcp-metrics-included.csv");

    private CountersFile() {
    }

    /** The most a counters file may hold: the largest file dcgm-exporter ever shipped has under 8 KiB. */
    public static final int MAX_BYTES = 1 << 20;

    /**
     * Reads and parses the file at {@code path}, reading at most {@link #MAX_BYTES} + 1 bytes whatever the
     * file claims to be ({@code /dev/zero}, a pipe).
     *
     * @throws CountersException {@linkplain CountersException#unreadable() unreadable} when the file cannot be
     *                           read, holds more than {@link #MAX_BYTES} or is not UTF-8; else naming the bad row
     */
    public static CounterSet read(Path path) {
        byte[] bytes;
        try {
            bytes = BoundedFile.readBytes(path, MAX_BYTES);
        } catch (BoundedFile.TooLargeException e) {
            throw CountersException.unreadable(path, "must name a file of at most " + MAX_BYTES
                    + " bytes (1 MiB); reading stopped there", e);
        } catch (IOException e) {
            throw CountersException.unreadable(path, "must name a readable file (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw CountersException.unreadable(path, "must name a UTF-8 text file", e);
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
        List<CounterSet.Duplicate> duplicates = new ArrayList<>();
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
            ExporterField exporterField = ExporterField.named(name);
            if (exporterField == null && catalog.id(name).isEmpty()) {
                throw bad(where, line, "names no counter: '" + name
                        + "' is no DCGM field and no DCGM_EXP_* series (could not find DCGM field)");
            }
            if (exporterField != null && type == MetricType.LABEL) {
                throw bad(where, line, "makes " + name + " a label, but it is a series of its own");
            }
            Optional<String> field = exporterField != null
                    ? Optional.of(name).filter(n -> exporterField.served()) : ServedFields.fieldOf(name, type);
            Counter counter = new Counter(name, field.orElse(name), type, fields.get(2), lineNumber);
            Integer first = seen.putIfAbsent(name, lineNumber);
            if (first != null) {
                duplicates.add(new CounterSet.Duplicate(counter, first));
            } else if (field.isEmpty()) {
                notServed.add(counter);
            } else if (type == MetricType.LABEL) {
                labels.add(counter);
            } else {
                metrics.add(counter);
            }
        }
        CounterSet set = new CounterSet(source, metrics, labels, notServed, duplicates);
        if (set.rows() == 0) {
            throw new CountersException(new ValidationFailure("counters file", source,
                    "has no counter rows, only comments and blank lines: the exporter would serve nothing"));
        }
        return set;
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
