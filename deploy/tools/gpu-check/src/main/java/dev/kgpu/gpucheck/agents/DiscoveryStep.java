package dev.kgpu.gpucheck.agents;

import dev.kgpu.gpucheck.compare.DiscoveryLabels;
import dev.kgpu.gpucheck.compare.Finding;
import dev.kgpu.gpucheck.report.StepResult;
import dev.kgpu.simulator.agents.Agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Discovery into its file sink (GFD's feature file), once: ready means the labels are written; they are
 * compared with what nvml-ffm and nvidia-smi say ({@link DiscoveryLabels}) and copied into the report folder.
 */
public final class DiscoveryStep {

    public static final String STEP = "discovery";

    private DiscoveryStep() {
    }

    public static StepOutcome run(CheckContext c, Path labelsCopy) {
        List<Finding> findings = new ArrayList<>();
        AgentSession session = null;
        try {
            Path file = c.work().resolve("gfd");
            Map<String, String> env = c.environment();
            int port = AgentSession.freePort();
            env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
            env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            env.put("KGPU_LABEL_SINK", "file");
            env.put("GFD_OUTPUT_FILE", file.toString());
            env.put("GFD_SLEEP_INTERVAL", "60s");
            env.put("MIG_STRATEGY", "none");
            session = new AgentSession(c, Agent.DISCOVERY, "labels written to the feature file", port, env);
            session.awaitReady();
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Files.writeString(labelsCopy, text, StandardCharsets.UTF_8);
            Map<String, String> labels = parse(text);
            findings.addAll(DiscoveryLabels.compare(labels, c.nvml(), c.smiBefore().stream().findFirst()));
            return AgentSession.end(findings, session, StepResult.Status.RAN, labels.size() + " labels in the feature file");
        } catch (IOException e) {
            return AgentSession.end(findings, session, StepResult.Status.FAILED, "the feature file could not be read: " + e.getMessage());
        } catch (RuntimeException e) {
            return AgentSession.end(findings, session, StepResult.Status.FAILED, e.getMessage());
        }
    }

    /** GFD's feature file: {@code key=value} lines. */
    static Map<String, String> parse(String text) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String line : text.lines().toList()) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("feature file line was '" + line + "' but it must be key=value");
            }
            labels.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return labels;
    }
}
