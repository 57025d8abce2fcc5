package dev.kgpu.validator;

import dev.kgpu.agent.ProbeLog;
import dev.kgpu.validator.core.Verdict;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when the latest pass found every component valid; each verdict is in the response data. Logs its
 * answer when it changes.
 */
@Readiness
@ApplicationScoped
public class ValidationReadiness implements HealthCheck {

    private final ProbeLog log = new ProbeLog("readiness", "gpu-node-validation");

    @Inject
    ValidationState state;

    @Override
    public HealthCheckResponse call() {
        log.answered(state.allValid(), () -> state.latest().isEmpty() ? "no validation pass has finished yet"
                : String.join("; ", state.latest().stream().filter(v -> !v.passed()).map(Verdict::line).toList()));
        HealthCheckResponseBuilder response = HealthCheckResponse.named("gpu-node-validation")
                .status(state.allValid());
        if (state.latest().isEmpty()) {
            response.withData("state", "no validation pass has finished yet");
        }
        for (Verdict verdict : state.latest()) {
            response.withData(verdict.component().id(), verdict.line());
        }
        return response.build();
    }
}
