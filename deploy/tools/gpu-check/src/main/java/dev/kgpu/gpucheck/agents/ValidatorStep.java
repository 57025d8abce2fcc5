package dev.kgpu.gpucheck.agents;

import dev.kgpu.gpucheck.compare.Compare;
import dev.kgpu.gpucheck.compare.Finding;
import dev.kgpu.gpucheck.compare.Agreement;
import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.Val;
import dev.kgpu.gpucheck.report.StepResult;
import dev.kgpu.simulator.agents.Agent;
import dev.kgpu.simulator.agents.AgentProcess;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The validator's driver component, one-shot, as gpu-operator's init container runs it: it must exit 0 with
 * {@code driver PASSED ... N GPUs answered}, and its {@code driver-ready} file must carry the driver and CUDA
 * versions nvml-ffm read.
 */
public final class ValidatorStep {

    public static final String STEP = "validator";
    private static final Pattern ANSWERED = Pattern.compile("(\\d+) GPUs? answered");

    private ValidatorStep() {
    }

    public static StepOutcome run(CheckContext c) {
        List<Finding> findings = new ArrayList<>();
        Compare compare = new Compare(STEP, "node", "nvml-ffm");
        AgentSession session = null;
        try {
            Path validations = c.work().resolve("validations");
            Files.createDirectories(validations);
            int port = AgentSession.freePort();
            Map<String, String> env = c.environment();
            env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
            env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            env.put("COMPONENT", "driver");
            env.put("OUTPUT_DIR", validations.toString());
            env.put("KGPU_VALIDATOR_MODE", "oneshot");
            env.put("NVIDIA_DRIVER_ROOT", "/");
            env.put("DRIVER_ROOT_CTR_PATH", "/");
            session = new AgentSession(c, Agent.VALIDATOR, "driver component's verdict (one-shot exit)", port, env);
            AgentProcess.Exit exit = session.awaitExit();
            findings.add(compare.decided("exit status", Integer.toString(exit.status()), "0", "the driver component passed",
                    exit.status() == 0 ? Agreement.MATCH : Agreement.MISMATCH, ""));
            Path out = session.process().log().resolveSibling("validator.out");
            String verdict = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8).strip() : "";
            findings.add(compare.decided("verdict", verdict, "driver PASSED ...", "its stdout line",
                    verdict.startsWith("driver PASSED") ? Agreement.MATCH : Agreement.MISMATCH, ""));
            Matcher answered = ANSWERED.matcher(verdict);
            findings.add(compare.exact("GPUs answered", answered.find() ? Val.num(Long.parseLong(answered.group(1))) : Val.absent(),
                    Val.num(c.nvml().gpus().size())));
            Map<String, String> ready = readyFile(validations.resolve("driver-ready"));
            findings.add(compare.exact("driver-ready DRIVER_VERSION", value(ready, "DRIVER_VERSION"), c.nvml().system(Fields.DRIVER_VERSION)));
            findings.add(compare.exact("driver-ready CUDA_DRIVER_VERSION", value(ready, "CUDA_DRIVER_VERSION"), c.nvml().system(Fields.CUDA_VERSION)));
            return AgentSession.end(findings, session, StepResult.Status.RAN, verdict.isEmpty() ? "no verdict line" : verdict);
        } catch (IOException e) {
            return AgentSession.end(findings, session, StepResult.Status.FAILED, "validator files unreadable: " + e.getMessage());
        } catch (RuntimeException e) {
            return AgentSession.end(findings, session, StepResult.Status.FAILED, e.getMessage());
        }
    }

    private static Val value(Map<String, String> file, String key) {
        String v = file.get(key);
        return v == null ? Val.absent() : Val.text(v);
    }

    /** {@code KEY=value} lines; empty when the file is missing (the component failed). */
    private static Map<String, String> readyFile(Path file) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return values;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1).replace("\"", "").replace("'", ""));
            }
        }
        return values;
    }
}
