package dev.kgpu.plugin.health;

import java.util.List;

/**
 * Told about health changes by the {@link HealthTracker}, on the thread that changed health (NVML's event
 * thread for an XID, the health check's for a probe), after the tracker released its lock. A listener reads
 * the current health with {@link HealthTracker#isHealthy(String)}: changes made meanwhile on another thread
 * are already there, and that thread calls the listener again. Must not block.
 */
@FunctionalInterface
public interface HealthListener {

    void onHealthChanged(List<HealthTransition> transitions);
}
