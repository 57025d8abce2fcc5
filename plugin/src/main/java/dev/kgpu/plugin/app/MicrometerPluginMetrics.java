package dev.kgpu.plugin.app;

import dev.kgpu.plugin.deviceplugin.DevicePluginMetrics;
import dev.kgpu.plugin.dra.DraMetrics;
import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.node.NodeMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The plugin's counters, the node's and each front-end's, served at {@code /q/metrics}:
 * {@code kgpu_plugin_health_transitions_total} (by the new health), with the device plugin
 * {@code kgpu_plugin_registrations_total} and {@code kgpu_plugin_allocations_total} (by resource and result), and with
 * the DRA driver
 * {@code kgpu_plugin_dra_claims_total} (by operation and result), {@code kgpu_plugin_dra_resourceslice_syncs_total}
 * and {@code kgpu_plugin_dra_mps_daemon_restarts_total} (by result).
 *
 * <p>Every series a rule may watch exists at 0 before its first event, so that {@code increase()} and {@code rate()}
 * count that event too (a series that first appears at 1 shows no increase): both health transitions from the start,
 * a resource's registrations and allocations of either result from its first registration, and the DRA driver's
 * counters from its first call of any of them (its first ResourceSlice sync, before any claim).
 */
@ApplicationScoped
@Startup
public class MicrometerPluginMetrics implements NodeMetrics, DevicePluginMetrics, DraMetrics {

    /** Both values of a two-valued tag: success and failure, Healthy and Unhealthy. */
    private static final List<Boolean> BOTH = List.of(true, false);
    private static final List<String> CLAIM_OPERATIONS = List.of("prepare", "unprepare");

    @Inject
    MeterRegistry registry;

    private final Set<String> servedResources = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean draCounted = new AtomicBoolean();

    @PostConstruct
    void registerHealthTransitions() {
        BOTH.forEach(this::healthTransitions);
    }

    @Override
    public void registration(String resource, boolean accepted) {
        served(resource);
        registrations(resource, accepted).increment();
    }

    @Override
    public void allocation(String resource, boolean allocated) {
        served(resource);
        allocations(resource, allocated).increment();
    }

    @Override
    public void healthTransition(HealthTransition transition) {
        healthTransitions(transition.healthy()).increment();
    }

    @Override
    public void claim(String operation, boolean success) {
        draCounting();
        claims(operation, success).increment();
    }

    @Override
    public void resourceSlicesPublished(boolean success) {
        draCounting();
        resourceSliceSyncs(success).increment();
    }

    @Override
    public void mpsDaemonRestarted(boolean success) {
        draCounting();
        mpsDaemonRestarts(success).increment();
    }

    /** A resource's first count: both results of its registrations and allocations, at 0 until counted. */
    private void served(String resource) {
        if (servedResources.add(resource)) {
            for (boolean result : BOTH) {
                registrations(resource, result);
                allocations(resource, result);
            }
        }
    }

    /** The DRA driver's first count: every series of its counters, at 0 until counted. */
    private void draCounting() {
        if (draCounted.compareAndSet(false, true)) {
            for (boolean result : BOTH) {
                CLAIM_OPERATIONS.forEach(operation -> claims(operation, result));
                resourceSliceSyncs(result);
                mpsDaemonRestarts(result);
            }
        }
    }

    private Counter registrations(String resource, boolean accepted) {
        return counter("kgpu.plugin.registrations", "Registrations with the kubelet", resource, accepted);
    }

    private Counter allocations(String resource, boolean allocated) {
        return counter("kgpu.plugin.allocations", "Allocate calls answered, per container", resource, allocated);
    }

    private Counter healthTransitions(boolean healthy) {
        return Counter.builder("kgpu.plugin.health.transitions")
                .description("Devices that changed health")
                .tag("health", healthy ? "Healthy" : "Unhealthy")
                .register(registry);
    }

    private Counter claims(String operation, boolean success) {
        return Counter.builder("kgpu.plugin.dra.claims")
                .description("DRA claims answered by NodePrepareResources (prepare) and NodeUnprepareResources (unprepare)")
                .tag("operation", operation)
                .tag("result", success ? "success" : "failure")
                .register(registry);
    }

    private Counter resourceSliceSyncs(boolean success) {
        return outcomes("kgpu.plugin.dra.resourceslice.syncs", "Syncs of the node's ResourceSlices with the devices offered", success);
    }

    private Counter mpsDaemonRestarts(boolean success) {
        return outcomes("kgpu.plugin.dra.mps.daemon.restarts", "Restarts of MPS claims' control daemons found stopped", success);
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
