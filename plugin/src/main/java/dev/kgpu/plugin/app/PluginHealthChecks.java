package dev.kgpu.plugin.app;

import dev.kgpu.agent.ProbeLog;
import dev.kgpu.plugin.node.FrontEndStatus;
import dev.kgpu.plugin.node.NodeStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * Liveness: the node runs and every front-end serves (the device plugin every resource, the DRA driver its sockets).
 * Readiness: the devices were read and every front-end is ready (the device plugin's resources registered, the DRA
 * driver registered and its ResourceSlices published). Each check shows the node's facts and every front-end's, merged
 * from their statuses without knowing which front-ends run, and logs its answer when it changes ({@link ProbeLog}),
 * not at every probe.
 */
public final class PluginHealthChecks {

    private PluginHealthChecks() {
    }

    static HealthCheckResponse describe(String name, boolean up, NodeStatus status) {
        HealthCheckResponseBuilder builder = HealthCheckResponse.named(name).status(up)
                .withData("devicesReadable", status.devicesReadable());
        for (FrontEndStatus frontEnd : status.frontEnds()) {
            frontEnd.details().forEach((key, value) -> {
                switch (value) {
                    case Boolean b -> builder.withData(key, b);
                    case Long l -> builder.withData(key, l);
                    default -> builder.withData(key, String.valueOf(value));
                }
            });
        }
        String problems = problems(status);
        if (!problems.isEmpty()) {
            builder.withData("problem", problems);
        }
        return builder.build();
    }

    static String problems(NodeStatus status) {
        return String.join("; ", status.allProblems());
    }

    @Liveness
    @ApplicationScoped
    public static class Live implements HealthCheck {
        private final ProbeLog log = new ProbeLog("liveness", "device plugin servers");

        @Inject
        PluginWiring plugin;

        @Override
        public HealthCheckResponse call() {
            NodeStatus status = plugin.status();
            boolean up = status.live();
            log.answered(up, () -> problems(status));
            return describe("device plugin servers", up, status);
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
            NodeStatus status = plugin.status();
            boolean up = status.ready();
            log.answered(up, () -> problems(status));
            return describe("registered with the kubelet", up, status);
        }
    }
}
