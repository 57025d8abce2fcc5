package dev.kgpu.plugin.app;

import dev.kgpu.plugin.dra.DraStatus;
import dev.kgpu.plugin.lifecycle.PluginStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Liveness: the supervisor runs and serves every resource (and the DRA driver's sockets, when it runs). Readiness:
 * every resource is registered (and the DRA driver is registered and its ResourceSlices are published).
 */
public final class PluginHealthChecks {

    private PluginHealthChecks() {
    }

    static HealthCheckResponse describe(String name, boolean up, PluginStatus status, Optional<DraStatus> dra) {
        HealthCheckResponseBuilder builder = HealthCheckResponse.named(name).status(up)
                .withData("resources", String.join(",", status.resources()))
                .withData("serving", String.join(",", status.serving()))
                .withData("registered", String.join(",", status.registered()))
                .withData("devicesReadable", status.devicesReadable());
        dra.ifPresent(d -> builder.withData("draServing", d.serving()).withData("draRegistered", d.registered())
                .withData("draSlicesPublished", d.slicesCurrent()).withData("draPreparedClaims", d.preparedClaims()));
        List<String> problems = new ArrayList<>(status.problems().stream().map(PluginStatus.Problem::message).toList());
        dra.ifPresent(d -> problems.addAll(d.problems()));
        if (!problems.isEmpty()) {
            builder.withData("problem", String.join("; ", problems));
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
            Optional<DraStatus> dra = plugin.draStatus();
            return describe("device plugin servers", status.live() && dra.map(DraStatus::live).orElse(true), status, dra);
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
            Optional<DraStatus> dra = plugin.draStatus();
            return describe("registered with the kubelet", status.ready() && dra.map(DraStatus::ready).orElse(true), status, dra);
        }
    }
}
