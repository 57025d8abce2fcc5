package dev.kgpu.plugin.app;

import dev.kgpu.plugin.deviceplugin.DevicePluginMetrics;
import dev.kgpu.plugin.dra.DraMetrics;
import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.node.NodeMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The plugin's counters, the node's and each front-end's, served at {@code /q/metrics}:
 * {@code kgpu_plugin_health_transitions_total} (by the new health), with the device plugin
 * {@code kgpu_plugin_registrations_total} and {@code kgpu_plugin_allocations_total} (by resource and result), and with
 * the DRA driver
 * {@code kgpu_plugin_dra_claims_total} (by operation and result), {@code kgpu_plugin_dra_resourceslice_syncs_total}
 * and {@code kgpu_plugin_dra_mps_daemon_restarts_total} (by result).
 */
@ApplicationScoped
public class MicrometerPluginMetrics implements NodeMetrics, DevicePluginMetrics, DraMetrics {

    @Inject
    MeterRegistry registry;

    @Override
    public void registration(String resource, boolean accepted) {
        counter("kgpu.plugin.registrations", "Registrations with the kubelet", resource, accepted).increment();
    }

    @Override
    public void allocation(String resource, boolean allocated) {
        counter("kgpu.plugin.allocations", "Allocate calls answered, per container", resource, allocated).increment();
    }

    @Override
    public void healthTransition(HealthTransition transition) {
        Counter.builder("kgpu.plugin.health.transitions")
                .description("Devices that changed health")
                .tag("health", transition.healthy() ? "Healthy" : "Unhealthy")
                .register(registry)
                .increment();
    }

    @Override
    public void claim(String operation, boolean success) {
        Counter.builder("kgpu.plugin.dra.claims")
                .description("DRA claims answered by NodePrepareResources (prepare) and NodeUnprepareResources (unprepare)")
                .tag("operation", operation)
                .tag("result", success ? "success" : "failure")
                .register(registry)
                .increment();
    }

    @Override
    public void resourceSlicesPublished(boolean success) {
        outcomes("kgpu.plugin.dra.resourceslice.syncs", "Syncs of the node's ResourceSlices with the devices offered", success)
                .increment();
    }

    @Override
    public void mpsDaemonRestarted(boolean success) {
        outcomes("kgpu.plugin.dra.mps.daemon.restarts", "Restarts of MPS claims' control daemons found stopped", success)
                .increment();
    }

    private Counter counter(String name, String description, String resource, boolean success) {
        return Counter.builder(name)
                .description(description)
                .tag("resource", resource)
                .tag("result", success ? "success" : "failure")
                .register(registry);
    }

    /** A counter of outcomes, tagged by result alone. */
    private Counter outcomes(String name, String description, boolean success) {
        return Counter.builder(name)
                .description(description)
                .tag("result", success ? "success" : "failure")
                .register(registry);
    }
}
