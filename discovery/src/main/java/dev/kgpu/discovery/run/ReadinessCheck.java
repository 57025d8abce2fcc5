package dev.kgpu.discovery.run;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready when the last labelling pass published the node's GPU labels. */
@Readiness
@ApplicationScoped
public class ReadinessCheck implements HealthCheck {

    @Inject
    PassStatus status;

    @Override
    public HealthCheckResponse call() {
        PassStatus.Snapshot last = status.current();
        return HealthCheckResponse.named("gpu-labels")
                .status(last.ready())
                .withData("lastPass", last.detail())
                .withData("at", last.at().toString())
                .build();
    }
}
