package dev.kgpu.gpucheck.report;

import dev.kgpu.gpucheck.compare.Finding;
import dev.kgpu.gpucheck.compare.Agreement;
import dev.kgpu.gpucheck.node.CallCost;
import dev.kgpu.gpucheck.node.NodeValues;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the check found so far. Steps add to it as they end; it is written out after each step, so a check
 * stopped half-way still leaves what it had.
 *
 * <p>Thread-safety: every method is synchronized (the shutdown hook may write it while a step runs).
 */
public final class Report {

    /** The check's outcome. */
    public enum Outcome {
        /** Every step ran and every compared value matched. */
        ALL_MATCH,
        /** A value did not match. */
        MISMATCH,
        /** A step could not run to the end (and nothing mismatched). */
        FAILED;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    private final String mode;
    private final Instant started;
    private final Map<String, String> machine;
    private final List<StepResult> steps = new ArrayList<>();
    private final List<Finding> findings = new ArrayList<>();
    private final List<AgentFigures> agents = new ArrayList<>();
    private final List<CallCost> costs = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private NodeValues nvml;
    private NodeValues smi;
    private boolean finished;

    public Report(String mode, Instant started, Map<String, String> machine) {
        this.mode = mode;
        this.started = started;
        this.machine = new LinkedHashMap<>(machine);
    }

    public synchronized void step(StepResult step) {
        steps.add(step);
    }

    public synchronized void findings(List<Finding> more) {
        findings.addAll(more);
    }

    public synchronized void agent(AgentFigures figures) {
        agents.add(figures);
    }

    public synchronized void cost(CallCost cost) {
        costs.add(cost);
    }

    public synchronized void note(String note) {
        notes.add(note);
    }

    public synchronized void nvml(NodeValues node) {
        this.nvml = node;
    }

    public synchronized void smi(NodeValues node) {
        this.smi = node;
    }

    public synchronized void finish() {
        finished = true;
    }

    public synchronized Outcome outcome() {
        if (findings.stream().anyMatch(f -> f.agreement() == Agreement.MISMATCH)) {
            return Outcome.MISMATCH;
        }
        if (!finished || steps.stream().anyMatch(s -> s.status() == StepResult.Status.FAILED)) {
            return Outcome.FAILED;
        }
        return Outcome.ALL_MATCH;
    }

    public synchronized List<Finding> mismatches() {
        return findings.stream().filter(f -> f.agreement() == Agreement.MISMATCH).toList();
    }

    public String mode() {
        return mode;
    }

    public Instant started() {
        return started;
    }

    public synchronized Map<String, String> machine() {
        return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(machine));
    }

    public synchronized List<String> machineLines() {
        return machine.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList();
    }

    public synchronized List<StepResult> steps() {
        return List.copyOf(steps);
    }

    public synchronized List<Finding> findings() {
        return List.copyOf(findings);
    }

    public synchronized List<AgentFigures> agents() {
        return List.copyOf(agents);
    }

    public synchronized List<CallCost> costs() {
        return List.copyOf(costs);
    }

    public synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    public synchronized Optional<NodeValues> nvml() {
        return Optional.ofNullable(nvml);
    }

    public synchronized Optional<NodeValues> smi() {
        return Optional.ofNullable(smi);
    }

    public synchronized boolean finished() {
        return finished;
    }
}
