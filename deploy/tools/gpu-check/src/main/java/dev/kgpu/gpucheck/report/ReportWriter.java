package dev.kgpu.gpucheck.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kgpu.gpucheck.compare.Finding;
import dev.kgpu.gpucheck.compare.Agreement;
import dev.kgpu.gpucheck.node.CallCost;
import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.Val;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes a {@link Report} as {@code report.md} and {@code report.json}, each replaced atomically. */
public final class ReportWriter {

    public static final String MARKDOWN = "report.md";
    public static final String JSON = "report.json";

    private ReportWriter() {
    }

    /** Writes both files; a second writer of the same report (the shutdown hook) waits for the first. */
    public static void write(Path folder, Report report) {
        synchronized (report) {
            replace(folder.resolve(MARKDOWN), markdown(report));
            replace(folder.resolve(JSON), json(report));
        }
    }

    /** The report without the table of every comparison: outcome, machine, steps, mismatches, figures. */
    public static String summary(Report report) {
        StringBuilder md = new StringBuilder();
        List<Finding> mismatches = report.mismatches();
        Report.Outcome outcome = report.outcome();
        md.append("# kgpu GPU check: ").append(switch (outcome) {
            case ALL_MATCH -> "all match";
            case MISMATCH -> mismatches.size() + " mismatch" + (mismatches.size() == 1 ? "" : "es");
            case FAILED -> report.finished() ? "failed" : "incomplete (the check did not finish)";
        }).append("\n\n");
        md.append("- Mode: ").append(report.mode()).append('\n');
        md.append("- Started: ").append(report.started()).append('\n');
        report.machineLines().forEach(l -> md.append("- ").append(l).append('\n'));
        report.nvml().ifPresent(n -> md.append("- Node (nvml-ffm): ").append(describe(n)).append('\n'));
        report.notes().forEach(n -> md.append("- Note: ").append(n).append('\n'));

        md.append("\n## Steps\n\n| step | result | time | detail |\n|---|---|---|---|\n");
        for (StepResult s : report.steps()) {
            md.append("| ").append(s.step()).append(" | ").append(s.status().name().toLowerCase(Locale.ROOT)).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f s", s.millis() / 1000.0)).append(" | ").append(cell(s.detail())).append(" |\n");
        }

        if (!mismatches.isEmpty()) {
            md.append("\n## Mismatches\n\n");
            mismatches.forEach(f -> md.append("- ").append(cell(f.line())).append('\n'));
        }

        if (!report.agents().isEmpty()) {
            md.append("\n## Agents on this machine\n\n| agent | start to ready | RSS | ready means | exit after SIGTERM | AOT cache |\n|---|---|---|---|---|---|\n");
            for (AgentFigures a : report.agents()) {
                md.append("| ").append(a.agent()).append(" | ")
                        .append(a.startToReadyMs() < 0 ? "never" : String.format(Locale.ROOT, "%.2f s", a.startToReadyMs() / 1000.0))
                        .append(" | ").append(a.rssKib() < 0 ? "unknown" : String.format(Locale.ROOT, "%.0f MiB (%s)", a.rssKib() / 1024.0, a.rssKind()))
                        .append(" | ").append(a.readyMeans()).append(" | ").append(a.exitStatus() < 0 ? "killed" : Integer.toString(a.exitStatus()))
                        .append(" | ").append(a.aotCache()).append(" |\n");
            }
        }

        if (!report.costs().isEmpty()) {
            md.append("\n## nvml-ffm per-call cost (timed loop, GPU 0)\n\n| call | per call | calls timed |\n|---|---|---|\n");
            for (CallCost c : report.costs()) {
                md.append("| ").append(c.call()).append(" | ").append(nanos(c.nanosPerCall())).append(" | ").append(c.calls()).append(" |\n");
            }
        }

        return md.toString();
    }

    /** The Markdown report: {@link #summary} and then every comparison. */
    public static String markdown(Report report) {
        StringBuilder md = new StringBuilder(summary(report));
        List<Finding> mismatches = report.mismatches();
        List<Finding> all = report.findings();
        md.append("\n## Every comparison (").append(all.size()).append(": ")
                .append(all.stream().filter(f -> f.agreement() == Agreement.MATCH).count()).append(" match, ")
                .append(mismatches.size()).append(" mismatch, ")
                .append(all.stream().filter(f -> f.agreement() == Agreement.NOT_COMPARED).count()).append(" not compared)\n\n");
        md.append("| step | subject | field | kgpu | reference | source | rule | verdict | note |\n|---|---|---|---|---|---|---|---|---|\n");
        for (Finding f : all) {
            md.append("| ").append(cell(f.step())).append(" | ").append(cell(f.subject())).append(" | ").append(cell(f.field()))
                    .append(" | ").append(cell(f.kgpu())).append(" | ").append(cell(f.reference())).append(" | ").append(cell(f.source()))
                    .append(" | ").append(cell(f.rule())).append(" | ").append(f.agreement().name().toLowerCase(Locale.ROOT).replace('_', ' '))
                    .append(" | ").append(cell(f.note())).append(" |\n");
        }
        return md.toString();
    }

    /** The JSON report: the same content, for scripts. */
    public static String json(Report report) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("outcome", report.outcome().word());
        root.put("finished", report.finished());
        root.put("mode", report.mode());
        root.put("started", report.started().toString());
        root.put("machine", report.machine());
        root.put("notes", report.notes());
        report.nvml().ifPresent(n -> root.put("nvml", node(n)));
        report.smi().ifPresent(n -> root.put("nvidiaSmi", node(n)));
        root.put("steps", report.steps());
        root.put("mismatches", report.mismatches().stream().map(Finding::line).toList());
        root.put("agents", report.agents());
        root.put("nvmlCallCost", report.costs());
        root.put("findings", report.findings());
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the report could not be written as JSON: " + e.getMessage(), e);
        }
    }

    private static Map<String, Object> node(NodeValues node) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("source", node.source());
        Map<String, String> system = new LinkedHashMap<>();
        node.system().forEach((k, v) -> system.put(k, v.show()));
        out.put("system", system);
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (NodeValues.GpuValues gpu : node.gpus()) {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("index", gpu.index());
            g.put("uuid", gpu.uuid());
            g.put("busId", gpu.busId());
            Map<String, String> fields = new java.util.TreeMap<>();
            gpu.fields().forEach((k, v) -> fields.put(k, v.show()));
            g.put("fields", fields);
            gpus.add(g);
        }
        out.put("gpus", gpus);
        return out;
    }

    private static String describe(NodeValues node) {
        StringBuilder s = new StringBuilder();
        s.append("driver ").append(node.system(Fields.DRIVER_VERSION).show()).append(", CUDA ")
                .append(node.system(Fields.CUDA_VERSION).show()).append(", ").append(node.gpus().size()).append(" GPU(s)");
        for (NodeValues.GpuValues gpu : node.gpus()) {
            s.append("; ").append(gpu.index()).append(": ").append(gpu.get(Fields.PRODUCT_NAME).show()).append(' ')
                    .append(gpu.uuid()).append(" at ").append(gpu.busId());
            if (gpu.get(Fields.FB_TOTAL) instanceof Val.Num(double mib)) {
                s.append(", ").append((long) mib).append(" MiB");
            }
            s.append(", MIG ").append(gpu.get(Fields.MIG_CURRENT).show());
        }
        return s.toString();
    }

    private static String nanos(double ns) {
        if (ns >= 1_000_000) {
            return String.format(Locale.ROOT, "%.2f ms", ns / 1_000_000);
        }
        if (ns >= 1_000) {
            return String.format(Locale.ROOT, "%.2f µs", ns / 1_000);
        }
        return String.format(Locale.ROOT, "%.0f ns", ns);
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    private static void replace(Path file, String content) {
        try {
            Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
            Files.writeString(temp, content, StandardCharsets.UTF_8);
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file + ": " + e.getMessage(), e);
        }
    }
}
