package dev.kgpu.plugin.app;

import dev.kgpu.plugin.health.HealthTransition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every series an alert may watch exists at 0 before its first event: a counter that first appears at 1 shows no
 * {@code increase()}, so an alert on the first Unhealthy GPU or the first failed Allocate would never fire.
 */
class MicrometerPluginMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerPluginMetrics metrics = new MicrometerPluginMetrics();

    @BeforeEach
    void start() {
        metrics.registry = registry;
        metrics.registerHealthTransitions();
    }

    @Test
    void bothHealthTransitionsAreThereAtZeroFromTheStart() {
        assertThat(count("kgpu.plugin.health.transitions", "health", "Healthy")).isZero();
        assertThat(count("kgpu.plugin.health.transitions", "health", "Unhealthy")).isZero();

        metrics.healthTransition(new HealthTransition("GPU-1", false, "XID 94", Instant.EPOCH));

        assertThat(count("kgpu.plugin.health.transitions", "health", "Unhealthy")).isEqualTo(1);
        assertThat(count("kgpu.plugin.health.transitions", "health", "Healthy")).isZero();
    }

    @Test
    void aResourcesFirstRegistrationBringsBothResultsOfItsRegistrationsAndAllocations() {
        assertThat(registry.find("kgpu.plugin.allocations").counters()).isEmpty();

        metrics.registration("nvidia.com/gpu", true);

        assertThat(count("kgpu.plugin.registrations", "resource", "nvidia.com/gpu", "result", "success")).isEqualTo(1);
        assertThat(count("kgpu.plugin.registrations", "resource", "nvidia.com/gpu", "result", "failure")).isZero();
        assertThat(count("kgpu.plugin.allocations", "resource", "nvidia.com/gpu", "result", "success")).isZero();
        assertThat(count("kgpu.plugin.allocations", "resource", "nvidia.com/gpu", "result", "failure")).isZero();

        metrics.allocation("nvidia.com/gpu", false);
        metrics.allocation("nvidia.com/gpu", true);
        metrics.allocation("nvidia.com/gpu", true);

        assertThat(count("kgpu.plugin.allocations", "resource", "nvidia.com/gpu", "result", "failure")).isEqualTo(1);
        assertThat(count("kgpu.plugin.allocations", "resource", "nvidia.com/gpu", "result", "success")).isEqualTo(2);
        assertThat(registry.find("kgpu.plugin.registrations").counters()).as("one resource, two results").hasSize(2);
    }

    @Test
    void theDraDriversFirstCountBringsEverySeriesOfItsCounters() {
        assertThat(registry.find("kgpu.plugin.dra.claims").counters()).as("no DRA series while no DRA driver counts")
                .isEmpty();

        metrics.resourceSlicesPublished(true);

        assertThat(count("kgpu.plugin.dra.resourceslice.syncs", "result", "success")).isEqualTo(1);
        assertThat(count("kgpu.plugin.dra.resourceslice.syncs", "result", "failure")).isZero();
        for (String operation : new String[]{"prepare", "unprepare"}) {
            for (String result : new String[]{"success", "failure"}) {
                assertThat(count("kgpu.plugin.dra.claims", "operation", operation, "result", result)).isZero();
            }
        }
        assertThat(count("kgpu.plugin.dra.mps.daemon.restarts", "result", "success")).isZero();
        assertThat(count("kgpu.plugin.dra.mps.daemon.restarts", "result", "failure")).isZero();

        metrics.claim("prepare", false);

        assertThat(count("kgpu.plugin.dra.claims", "operation", "prepare", "result", "failure")).isEqualTo(1);
    }

    private double count(String name, String... tags) {
        Counter counter = registry.find(name).tags(tags).counter();
        assertThat(counter).as(name + " " + String.join(",", tags)).isNotNull();
        return counter.count();
    }
}
