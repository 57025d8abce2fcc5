package dev.kgpu.plugin.health;

import java.util.List;

/**
 * Told about health changes, synchronously and in order, while the tracker holds its lock: it may read
 * {@link HealthTracker#isHealthy(String)} for a consistent view but must not block.
 */
@FunctionalInterface
public interface HealthListener {

    void onHealthChanged(List<HealthTransition> transitions);
}
