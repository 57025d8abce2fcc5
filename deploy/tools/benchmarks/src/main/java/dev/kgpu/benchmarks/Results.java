package dev.kgpu.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Every figure of every subject, the soak's memory timeline and the machine they were taken on; printed as one
 * markdown table (subjects side by side, kgpu against the targets) and written as JSON. Thread-safety: one thread
 * records start-up figures; the soak records from its workers, so every method is synchronized.
 */
final class Results {

    private final Map<String, Map<Figure, List<Double>>> figures = new LinkedHashMap<>();
    private final Map<String, String> subjects = new LinkedHashMap<>();
    private final Map<String, List<Map<String, Object>>> timeline = new LinkedHashMap<>();
    private final Map<String, Object> machine = new LinkedHashMap<>();
    private final Map<String, Object> settings = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();

    synchronized void subject(Subject subject) {
        subjects.put(subject.name(), subject.describe());
        figures.putIfAbsent(subject.name(), new EnumMap<>(Figure.class));
    }

    synchronized void add(Subject subject, Figure figure, double value) {
        figures.computeIfAbsent(subject.name(), s -> new EnumMap<>(Figure.class))
                .computeIfAbsent(figure, f -> new ArrayList<>()).add(value);
    }

    synchronized void machine(String key, Object value) {
        machine.put(key, value);
    }

    synchronized void setting(String key, Object value) {
        settings.put(key, value);
    }

    /** A remark printed under the table, once however often it is made (e.g. once per run). */
    synchronized void note(String note) {
        if (!notes.contains(note)) {
            notes.add(note);
        }
    }

    /** One sample of the soak's timeline: every agent's RSS at {@code second}, and the load average. */
    synchronized void timeline(String subject, Map<String, Object> sample) {
        timeline.computeIfAbsent(subject, s -> new ArrayList<>()).add(sample);
    }

    /** The value of {@code figure} the last run recorded, 0 when none did. */
    synchronized double last(Subject subject, Figure figure) {
        List<Double> values = figures.getOrDefault(subject.name(), Map.of()).get(figure);
        return values == null || values.isEmpty() ? 0 : values.getLast();
    }

    synchronized Optional<Double> median(String subject, Figure figure) {
        List<Double> values = figures.getOrDefault(subject, Map.of()).get(figure);
        if (values == null || values.isEmpty()) {
            return Optional.empty();
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return Optional.of(n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2);
    }

    /** The markdown table: one row per figure, one column per subject, then kgpu's verdict against the target. */
    synchronized String table() {
        List<String> names = new ArrayList<>(figures.keySet());
        StringBuilder out = new StringBuilder("| figure | target |");
        names.forEach(n -> out.append(' ').append(n).append(" |"));
        out.append(" kgpu: target |\n|---|---|");
        names.forEach(n -> out.append("---|"));
        out.append("---|\n");
        for (Figure figure : Figure.values()) {
            if (names.stream().noneMatch(n -> figures.get(n).containsKey(figure))) {
                continue;
            }
            out.append("| ").append(figure.label()).append(" | ").append(figure.targetText()).append(" |");
            for (String name : names) {
                out.append(' ').append(cell(figures.get(name).get(figure), figure)).append(" |");
            }
            String verdict = figure.target().flatMap(t -> median(names.getFirst(), figure)
                    .map(m -> m <= t ? "met" : "missed")).orElse("");
            out.append(' ').append(verdict).append(" |\n");
        }
        return out.toString();
    }

    private static String cell(List<Double> values, Figure figure) {
        if (values == null || values.isEmpty()) {
            return "n/a";
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        String text = figure.format(median) + " " + figure.unit();
        if (n > 1) {
            text += " (" + figure.format(sorted[0]) + "–" + figure.format(sorted[n - 1]) + ")";
        }
        return text;
    }

    synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    synchronized void writeJson(Path file) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("machine", machine);
        root.put("settings", settings);
        Map<String, Object> bySubject = new LinkedHashMap<>();
        figures.forEach((name, values) -> {
            Map<String, Object> subject = new LinkedHashMap<>();
            subject.put("runs", subjects.get(name));
            Map<String, Object> figureMap = new LinkedHashMap<>();
            values.forEach((figure, samples) -> {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("unit", figure.unit());
                median(name, figure).ifPresent(m -> entry.put("median", m));
                figure.target().ifPresent(t -> entry.put("target", t));
                entry.put("samples", samples);
                figureMap.put(figure.key(), entry);
            });
            subject.put("figures", figureMap);
            subject.put("soak_timeline", timeline.getOrDefault(name, List.of()));
            bySubject.put(name, subject);
        });
        root.put("subjects", bySubject);
        root.put("notes", notes);
        Files.createDirectories(file.toAbsolutePath().getParent());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
    }

    /** Nearest-rank percentile of nanosecond samples, in milliseconds. */
    static double percentileMillis(long[] nanos, double p) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return String.format(Locale.ROOT, "%s %s %s", parts[0], parts[1], parts[2]);
        } catch (IOException e) {
            return "unknown";
        }
    }
}
