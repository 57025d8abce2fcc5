package dev.kgpu.nvml;

import java.util.List;

/**
 * A running health-event watch started by {@link Nvml#startHealthMonitor}. It owns an NVML event set and
 * one platform thread named {@code nvml-health-events}.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public interface HealthMonitor extends AutoCloseable {

    /** Devices that could not be registered for events (NVML said NOT_SUPPORTED), with no events expected. */
    List<GpuDevice> unmonitoredDevices();

    /** Whether the watch thread still runs (false after {@link #close()} or a {@link HealthEvent.MonitorFailure}). */
    boolean running();

    /** Stops the thread (within one wait period) and frees the event set. Idempotent. */
    @Override
    void close();
}
