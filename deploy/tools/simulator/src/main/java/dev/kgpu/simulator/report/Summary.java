package dev.kgpu.simulator.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kgpu.simulator.report.NodeReport.AgentReport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The summary a user acts on, as text for the terminal and as JSON for scripts and tests. */
public final class Summary {

    private Summary() {
    }

    /** The text printed once the node is up. */
    public static String text(NodeReport report, boolean exitWhenReady) {
        StringBuilder out = new StringBuilder();
        out.append('\n').append(report.healthy() ? "kgpu simulated node is ready: " : "kgpu simulated node is up, with problems: ")
                .append(report.nodeName()).append(" (profile ").append(report.profile()).append(": ")
                .append(report.gpus()).append("; MIG strategy ").append(report.migStrategy()).append(")\n\n");

        out.append("Node ").append(report.nodeName()).append(" (as kubectl describe node shows it)\n");
        out.append("  Capacity:\n");
        resources(out, report.capacity());
        out.append("  Allocatable:\n");
        resources(out, report.allocatable());

        out.append("\nDevice plugin resources registered with the kubelet\n");
        if (report.resources().isEmpty()) {
            out.append("  (none)\n");
        }
        for (NodeReport.RegisteredResource r : report.resources()) {
            out.append(String.format(Locale.ROOT, "  %-28s endpoint %-34s %d devices, %d healthy%n",
                    r.resourceName(), r.endpoint(), r.devices(), r.healthy()));
        }

        out.append("\nLabels set by discovery (").append(report.labels().size()).append(")\n");
        new TreeMap<>(report.labels()).forEach((k, v) -> out.append("  ").append(k).append('=').append(v).append('\n'));

        out.append("\nMetrics: ").append(report.metricsUrl()).append('\n');
        report.metricSamples().forEach(line -> out.append("  ").append(line).append('\n'));

        NodeReport.Demo demo = report.demo();
        out.append("\nDemo workload: pod ").append(demo.pod()).append(" (").append(demo.resource()).append(": 1) is ")
                .append(demo.phase());
        if (!demo.devices().isEmpty()) {
            out.append(" with ").append(String.join(", ", demo.devices()));
        }
        out.append('\n');
        demo.note().ifPresent(n -> out.append("  ").append(n).append('\n'));

        out.append("\nValidator (one-shot, every component)\n");
        for (NodeReport.ValidatorVerdict v : report.verdicts()) {
            out.append(String.format(Locale.ROOT, "  %-8s %-7s %s%n", v.component(), v.result(), v.detail()));
        }

        out.append("\nAgents\n");
        out.append(String.format(Locale.ROOT, "  %-10s %7s %-15s %-16s %-31s %s%n", "agent", "pid", "start-to-ready", "RSS",
                "ready means", "AOT cache"));
        for (AgentReport a : report.agents()) {
            out.append(String.format(Locale.ROOT, "  %-10s %7d %-15s %-16s %-31s %s%n", a.agent(), a.pid(),
                    seconds(a.startToReady()), mib(a.rssMib()) + (a.rssKind().equals("peak") ? " (peak)" : ""),
                    a.readyMeans(), a.aotCache()));
        }
        out.append("  JVM options: ").append(report.jvmOptions().map(p -> "@" + p)
                .orElse("none (deploy/release/images/jvm.options does not exist: the JVM's defaults)")).append('\n');

        if (!report.problems().isEmpty()) {
            out.append("\nProblems\n");
            report.problems().forEach(p -> out.append("  - ").append(p).append('\n'));
        }

        out.append("\nWhere to look\n");
        out.append("  kubectl --kubeconfig ").append(report.kubeconfig()).append(" describe node ").append(report.nodeName()).append('\n');
        out.append("  kubectl --kubeconfig ").append(report.kubeconfig()).append(" get pods -A -o wide\n");
        out.append("  curl -s ").append(report.metricsUrl()).append(" | grep 'pod=\"").append(demo.pod().substring(demo.pod().indexOf('/') + 1)).append("\"'\n");
        out.append("  logs:  ").append(report.workDir()).append("/logs/ (plugin.log, discovery.log, exporter.log, validator.log, validator.out, simulator.log)\n");
        if (!report.firstGpuUuid().isEmpty()) {
            out.append("  an XID: echo 'xid ").append(report.firstGpuUuid()).append(" 94' >> ").append(report.eventsFile())
                    .append("   (the plugin marks the GPU Unhealthy; allocatable drops)\n");
        }
        out.append("  API server: ").append(report.apiServerUrl()).append('\n');
        out.append('\n').append(exitWhenReady ? "Stopping the node (--exit-when-ready).\n" : "Press Ctrl-C to stop the node.\n");
        return out.toString();
    }

    private static void resources(StringBuilder out, Map<String, String> resources) {
        if (resources.isEmpty()) {
            out.append("    (no nvidia.com resources)\n");
        }
        new TreeMap<>(resources).forEach((k, v) -> out.append(String.format(Locale.ROOT, "    %-26s %s%n", k + ":", v)));
    }

    static String seconds(java.time.Duration duration) {
        return String.format(Locale.ROOT, "%.2f s", duration.toMillis() / 1000.0);
    }

    static String mib(double mib) {
        return String.format(Locale.ROOT, "%.0f MiB", mib);
    }

    /** The report as JSON (written to {@code summary.json}). */
    public static String json(NodeReport report) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("healthy", report.healthy());
        json.put("nodeName", report.nodeName());
        json.put("profile", report.profile());
        json.put("gpus", report.gpus());
        json.put("migStrategy", report.migStrategy());
        json.put("capacity", new TreeMap<>(report.capacity()));
        json.put("allocatable", new TreeMap<>(report.allocatable()));
        json.put("resources", report.resources());
        json.put("labels", new TreeMap<>(report.labels()));
        json.put("metricsUrl", report.metricsUrl());
        json.put("metricSamples", report.metricSamples());
        Map<String, Object> demo = new LinkedHashMap<>();
        demo.put("pod", report.demo().pod());
        demo.put("resource", report.demo().resource());
        demo.put("phase", report.demo().phase());
        demo.put("devices", report.demo().devices());
        demo.put("attributed", report.demo().attributed());
        demo.put("note", report.demo().note().orElse(null));
        json.put("demo", demo);
        json.put("verdicts", report.verdicts());
        List<Map<String, Object>> agents = new ArrayList<>();
        for (AgentReport a : report.agents()) {
            Map<String, Object> agent = new LinkedHashMap<>();
            agent.put("agent", a.agent());
            agent.put("pid", a.pid());
            agent.put("startToReadyMs", a.startToReady().toMillis());
            agent.put("rssMib", Math.round(a.rssMib() * 10) / 10.0);
            agent.put("rssKind", a.rssKind());
            agent.put("readyMeans", a.readyMeans());
            agent.put("aotCacheUsed", a.aotCacheUsed());
            agent.put("aotCache", a.aotCache());
            agent.put("log", a.log());
            agents.add(agent);
        }
        json.put("agents", agents);
        json.put("jvmOptions", report.jvmOptions().orElse(null));
        json.put("workDir", report.workDir());
        json.put("kubeconfig", report.kubeconfig());
        json.put("apiServerUrl", report.apiServerUrl());
        json.put("problems", report.problems());
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(json) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("the summary could not be written as JSON", e);
        }
    }
}
