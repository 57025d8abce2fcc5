package dev.kgpu.gpucheck.agents;

import dev.kgpu.gpucheck.compare.Finding;
import dev.kgpu.gpucheck.report.AgentFigures;
import dev.kgpu.gpucheck.report.StepResult;

import java.util.List;
import java.util.Optional;

/** What one agent step found: its comparisons, the agent's figures, and whether it ran to the end. */
public record StepOutcome(List<Finding> findings, Optional<AgentFigures> figures, StepResult.Status status, String detail) {

    public StepOutcome {
        findings = List.copyOf(findings);
    }
}
