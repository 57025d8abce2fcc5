package dev.kgpu.validator;

import dev.kgpu.validator.core.Verdict;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/** Ready when the latest pass found every component valid; each verdict is in the response data. */
@Readiness
@ApplicationScoped
public class ValidationReadiness implements HealthCheck {

    @Inject
    ValidationState state;

    @Override
    public HealthCheckResponse call() {
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
