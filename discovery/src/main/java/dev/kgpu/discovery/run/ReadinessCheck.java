package dev.kgpu.discovery.run;

import dev.kgpu.agent.ProbeLog;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready when the last labelling pass published the node's GPU labels; logs its answer when it changes. */
@Readiness
@ApplicationScoped
public class ReadinessCheck implements HealthCheck {

    private final ProbeLog log = new ProbeLog("readiness", "gpu-labels");

    @Inject
    PassStatus status;

    @Override
    public HealthCheckResponse call() {
        PassStatus.Snapshot last = status.current();
        log.answered(last.ready(), last::detail);
        return HealthCheckResponse.named("gpu-labels")
                .status(last.ready())
                .withData("lastPass", last.detail())
                .withData("at", last.at().toString())
                .build();
    }
}
