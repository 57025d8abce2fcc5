package dev.kgpu.plugin.app;

import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.lifecycle.PluginMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The plugin's counters, served at {@code /q/metrics}: {@code kgpu_plugin_registrations_total},
 * {@code kgpu_plugin_allocations_total} (by resource and result) and
 * {@code kgpu_plugin_health_transitions_total} (by the new health).
 */
@ApplicationScoped
public class MicrometerPluginMetrics implements PluginMetrics {

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

    private Counter counter(String name, String description, String resource, boolean success) {
        return Counter.builder(name)
                .description(description)
                .tag("resource", resource)
                .tag("result", success ? "success" : "failure")
                .register(registry);
    }
}
