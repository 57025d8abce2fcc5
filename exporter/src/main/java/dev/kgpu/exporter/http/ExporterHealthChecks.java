package dev.kgpu.exporter.http;

import dev.kgpu.exporter.app.Exporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/** SmallRye Health: live while the supervisor runs, ready while collections succeed. */
public final class ExporterHealthChecks {

    private ExporterHealthChecks() {
    }

    @Liveness
    @ApplicationScoped
    public static class Live implements HealthCheck {
        @Inject
        Exporter exporter;

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("exporter-supervisor").status(exporter.alive()).build();
        }
    }

    @Readiness
    @ApplicationScoped
    public static class Ready implements HealthCheck {
        @Inject
        Exporter exporter;

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("metrics-collection").status(exporter.healthy()).build();
        }
    }
}
