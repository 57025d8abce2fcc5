package dev.kgpu.plugin.node;

import dev.kgpu.agent.Supervisor;
import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.health.HealthTracker;

import java.time.Duration;
import java.time.Instant;

/**
 * What the node runtime offers its front-ends ({@link FrontEnd#start}): the health of the devices it watches, the
 * ledger of who holds which of them, and its one thread, on which a front-end's own events and retries run in order
 * with the node's (kubelet folder changes for the device plugin, registration verdicts for the DRA driver).
 * Thread-safe.
 */
public interface NodeContext {

    /** The health of every device the node watches, each front-end's among them. */
    HealthTracker health();

    /** Who holds which of the node's GPUs: the record both front-ends share. */
    AllocationLedger ledger();

    /**
     * The GPUs' compute modes, through the node's device source (NVML) as it is open now: the DRA driver gives a
     * time-sliced claim's GPU the mode time-slicing needs.
     *
     * @throws DeviceSourceException when no source is open, or it cannot read or set compute modes
     */
    ComputeModes computeModes();

    /** Now, by the node's clock (for the ledger's timestamps). */
    Instant now();

    /** Runs {@code task} on the node's thread, after the events already waiting; dropped once the node stopped. */
    void run(Runnable task);

    /** Runs {@code task} on the node's thread after {@code delay}, unless cancelled first. */
    Supervisor.Timer after(Duration delay, Runnable task);

    /**
     * A retry of {@code action} with the node's backoff, for a front-end's own retries (serving, registering). Use it
     * on the node's thread only.
     */
    Retry retry(Runnable action);
}
