package dev.kgpu.plugin.app;

import dev.kgpu.plugin.lifecycle.PluginStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.util.stream.Collectors;

/** Liveness: the supervisor runs and serves every resource. Readiness: every resource is registered. */
public final class PluginHealthChecks {

    private PluginHealthChecks() {
    }

    static HealthCheckResponse describe(String name, boolean up, PluginStatus status) {
        HealthCheckResponseBuilder builder = HealthCheckResponse.named(name).status(up)
                .withData("resources", String.join(",", status.resources()))
                .withData("serving", String.join(",", status.serving()))
                .withData("registered", String.join(",", status.registered()))
                .withData("devicesReadable", status.devicesReadable());
        if (!status.problems().isEmpty()) {
            builder.withData("problem", status.problems().stream().map(PluginStatus.Problem::message)
                    .collect(Collectors.joining("; ")));
        }
        return builder.build();
    }

    @Liveness
    @ApplicationScoped
    public static class Live implements HealthCheck {
        @Inject
        PluginWiring plugin;

        @Override
        public HealthCheckResponse call() {
            PluginStatus status = plugin.status();
            return describe("device plugin servers", status.live(), status);
        }
    }

    @Readiness
    @ApplicationScoped
    public static class Ready implements HealthCheck {
        @Inject
        PluginWiring plugin;

        @Override
        public HealthCheckResponse call() {
            PluginStatus status = plugin.status();
            return describe("registered with the kubelet", status.ready(), status);
        }
    }
}
