package dev.kgpu.plugin.app;

import dev.kgpu.agent.ProbeLog;
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
 * every resource is registered (and the DRA driver is registered and its ResourceSlices are published). Each
 * logs its answer when it changes ({@link ProbeLog}), not at every probe.
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
        String problems = problems(status, dra);
        if (!problems.isEmpty()) {
            builder.withData("problem", problems);
        }
        return builder.build();
    }

    static String problems(PluginStatus status, Optional<DraStatus> dra) {
        List<String> problems = new ArrayList<>(status.problems().stream().map(PluginStatus.Problem::message).toList());
        dra.ifPresent(d -> problems.addAll(d.problems()));
        return String.join("; ", problems);
    }

    @Liveness
    @ApplicationScoped
    public static class Live implements HealthCheck {
        private final ProbeLog log = new ProbeLog("liveness", "device plugin servers");

        @Inject
        PluginWiring plugin;

        @Override
        public HealthCheckResponse call() {
            PluginStatus status = plugin.status();
            Optional<DraStatus> dra = plugin.draStatus();
            boolean up = status.live() && dra.map(DraStatus::live).orElse(true);
            log.answered(up, () -> problems(status, dra));
            return describe("device plugin servers", up, status, dra);
        }
    }

    @Readiness
    @ApplicationScoped
    public static class Ready implements HealthCheck {
        private final ProbeLog log = new ProbeLog("readiness", "registered with the kubelet");

        @Inject
        PluginWiring plugin;

        @Override
        public HealthCheckResponse call() {
            PluginStatus status = plugin.status();
            Optional<DraStatus> dra = plugin.draStatus();
            boolean up = status.ready() && dra.map(DraStatus::ready).orElse(true);
            log.answered(up, () -> problems(status, dra));
            return describe("registered with the kubelet", up, status, dra);
        }
    }
}
