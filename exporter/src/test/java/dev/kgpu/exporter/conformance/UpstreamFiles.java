package dev.kgpu.exporter.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NVIDIA's files kept under {@code src/test/resources/upstream} (listed with their origin in {@code ORIGINS.tsv}):
 * every counters CSV dcgm-exporter shipped in a release from 2.2.9-2.4.1 to 4.5.3-4.8.2 and on main
 * ({@code etc/*.csv}, and the CSV inside its Helm chart's {@code metrics-configmap.yaml}), gpu-operator's
 * {@code dcgmExporter.config.data} examples, and dashboard 12239 in both revisions.
 */
final class UpstreamFiles {

    static final Path ROOT = Path.of("src", "test", "resources", "upstream");

    /** One counters file as dcgm-exporter would read it. */
    record CountersCsv(String name, String text) {
        @Override
        public String toString() {
            return name;
        }

        /** The same file with every commented-out row switched on (dcgm-exporter's opt-in rows). */
        CountersCsv withOptInRows() {
            return new CountersCsv(name + " (opt-in rows on)", OPT_IN.matcher(text).replaceAll("$1$2"));
        }
    }

    /** {@code # DCGM_FI_...,  gauge, help} and {@code # dcgm_...}: a commented row, not prose. */
    private static final Pattern OPT_IN = Pattern.compile(
            "(?m)^(\\s*)#\\s*((?:DCGM_|dcgm_)[A-Za-z0-9_]+\\s*,\\s*(?:gauge|counter|label|histogram|summary)\\s*,)");

    private UpstreamFiles() {
    }

    /** Every counters file, as shipped. */
    static List<CountersCsv> countersFiles() {
        List<CountersCsv> files = new ArrayList<>();
        for (String[] origin : origins()) {
            String file = origin[0];
            String text = read(file);
            if (file.endsWith(".csv")) {
                files.add(new CountersCsv(file, text));
            } else if (file.endsWith("metrics-configmap.yaml")) {
                files.add(new CountersCsv(file, yamlBlock(text, "metrics: |", true)));
            } else if (file.endsWith("dcgm_exporter_config_test.yaml")) {
                files.add(new CountersCsv(file, yamlBlock(text, "data: |-", false)));
            } else if (file.contains("values.yaml")) {
                // the chart's example is commented out as a whole: its rows switched on, as a user would
                CountersCsv example = new CountersCsv(file, yamlBlock(text, "# data: |-", false)).withOptInRows();
                files.add(new CountersCsv(file, example.text()));
            }
        }
        return files;
    }

    /** The dashboards, by file name. */
    static List<Path> dashboards() {
        return origins().stream().map(o -> o[0]).filter(f -> f.endsWith(".json")).map(ROOT::resolve).toList();
    }

    static List<String[]> origins() {
        try {
            return Files.readAllLines(ROOT.resolve("ORIGINS.tsv"), StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> l.split("\t")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(String file) {
        try {
            return Files.readString(ROOT.resolve(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The block scalar after {@code key}: its lines, unindented, up to the first line indented less or a
     * Helm template line ({@code {{- end }}}), which ends the default list in the chart's ConfigMap.
     */
    static String yamlBlock(String yaml, String key, boolean stopAtTemplate) {
        List<String> lines = yaml.lines().toList();
        int start = -1;
        int keyIndent = 0;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = Pattern.compile("^(\\s*)" + Pattern.quote(key) + "\\s*$").matcher(lines.get(i));
            if (m.matches()) {
                start = i + 1;
                keyIndent = m.group(1).length();
            }
        }
        if (start < 0) {
            throw new AssertionError("no '" + key + "' block");
        }
        StringBuilder out = new StringBuilder();
        int indent = -1;
        for (int i = start; i < lines.size(); i++) {
            String line = lines.get(i);
            if (stopAtTemplate && line.strip().startsWith("{{")) {
                break;
            }
            if (line.isBlank()) {
                out.append('\n');
                continue;
            }
            int lead = line.length() - line.stripLeading().length();
            if (lead <= keyIndent) {
                break;
            }
            if (indent < 0) {
                indent = lead;
            }
            out.append(line.substring(Math.min(indent, lead))).append('\n');
        }
        return out.toString();
    }
}
