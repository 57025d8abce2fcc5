package dev.kgpu.plugin.health;

import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The health of every device the plugin advertises, and the rules that change it.
 *
 * <ul>
 *   <li>A critical XID ({@link HealthPolicy#isCritical}) marks the device Unhealthy at once: the GPU and all
 *       its MIG devices, or only the MIG device whose GPU/compute instance the event names.</li>
 *   <li>{@link #onNvmlLost(String)} (the event monitor failed, the driver went away) marks every device
 *       Unhealthy: a node must not advertise GPUs it cannot serve.</li>
 *   <li>{@link #check()} (called periodically) probes every device: a Healthy one that does not answer turns
 *       Unhealthy; an Unhealthy one that may recover (lost with NVML, failing probes, or marked by a
 *       recoverable XID whose {@link HealthPolicy#quietPeriod()} has passed without a new critical XID)
 *       returns to Healthy when it answers.</li>
 * </ul>
 *
 * <p>Time comes from the injected {@link InstantSource}, so tests move it instead of sleeping.
 * Thread-safety: all methods may be called from any thread; listeners are called under the tracker's lock.
 */
public final class HealthTracker {

    private final HealthPolicy policy;
    private final InstantSource clock;
    private final DeviceProbe probe;
    private final HealthListener listener;

    private final Object lock = new Object();
    // guarded by lock
    private Map<String, Unit> units = Map.of();
    private boolean nvmlLost;

    public HealthTracker(HealthPolicy policy, InstantSource clock, DeviceProbe probe, HealthListener listener) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.probe = Objects.requireNonNull(probe, "probe");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    public HealthPolicy policy() {
        return policy;
    }

    /**
     * Tracks exactly {@code devices} from now on. Devices tracked before keep their state; new ones start
     * Healthy. No listener call: the caller publishes the new device set itself.
     */
    public void track(Collection<? extends PhysicalDevice> devices) {
        synchronized (lock) {
            Map<String, Unit> next = new LinkedHashMap<>();
            for (PhysicalDevice device : devices) {
                Unit old = units.get(device.uuid());
                next.put(device.uuid(), old != null ? old.with(device) : new Unit(device));
            }
            units = next;
        }
    }

    public boolean isHealthy(String uuid) {
        synchronized (lock) {
            Unit unit = units.get(uuid);
            return unit != null && unit.healthy();
        }
    }

    /** Why a device is Unhealthy, or empty when it is Healthy (or unknown). */
    public Optional<String> unhealthyReason(String uuid) {
        synchronized (lock) {
            Unit unit = units.get(uuid);
            return unit == null || unit.healthy() ? Optional.empty() : Optional.of(unit.reason());
        }
    }

    /** Whether NVML was reported lost and has not answered a probe since. */
    public boolean nvmlLost() {
        synchronized (lock) {
            return nvmlLost;
        }
    }

    /**
     * A critical-XID event from NVML. {@code gpuInstanceId}/{@code computeInstanceId} are empty when the
     * error concerns the whole GPU. Returns the transitions it caused (empty for an ignored XID, an unknown
     * GPU, or a device already Unhealthy, whose quiet period restarts).
     */
    public List<HealthTransition> onXid(String gpuUuid, long xid, OptionalInt gpuInstanceId, OptionalInt computeInstanceId) {
        if (!policy.isCritical(xid)) {
            return List.of();
        }
        Instant now = clock.instant();
        boolean recovers = policy.recovers(xid);
        synchronized (lock) {
            List<HealthTransition> transitions = new ArrayList<>();
            for (Unit unit : units.values()) {
                if (!hitBy(unit.device, gpuUuid, gpuInstanceId, computeInstanceId)) {
                    continue;
                }
                boolean wasHealthy = unit.healthy();
                unit.xid = unit.xid == null ? new XidFault(xid, now, recovers) : unit.xid.again(xid, now, recovers);
                if (wasHealthy) {
                    transitions.add(new HealthTransition(unit.device.uuid(), false, unit.reason(), now));
                }
            }
            publish(transitions);
            return transitions;
        }
    }

    /** NVML stopped answering (monitor failure, GPU lost, driver unloaded): every device turns Unhealthy. */
    public List<HealthTransition> onNvmlLost(String reason) {
        Instant now = clock.instant();
        synchronized (lock) {
            nvmlLost = true;
            List<HealthTransition> transitions = new ArrayList<>();
            for (Unit unit : units.values()) {
                boolean wasHealthy = unit.healthy();
                unit.lost = "NVML lost: " + reason;
                if (wasHealthy) {
                    transitions.add(new HealthTransition(unit.device.uuid(), false, unit.reason(), now));
                }
            }
            publish(transitions);
            return transitions;
        }
    }

    /**
     * One periodic health check. Probes every Healthy device (one that no longer answers turns Unhealthy at
     * once) and every Unhealthy device that may recover now: those lost with NVML or failing a probe, and
     * those marked by a recoverable XID whose {@link HealthPolicy#quietPeriod()} has passed without a new
     * critical XID. A device that answers returns to Healthy. Probes run without the lock held; a device
     * that changed meanwhile (a new XID) keeps its new state.
     */
    public CheckResult check() {
        Instant now = clock.instant();
        List<Unit> candidates = new ArrayList<>();
        synchronized (lock) {
            for (Unit unit : units.values()) {
                if (unit.healthy() || unit.lost != null || unit.xid.mayRecoverAt(now, policy.quietPeriod())) {
                    candidates.add(unit);
                }
            }
        }
        Map<Unit, Optional<String>> answers = new LinkedHashMap<>();
        for (Unit unit : candidates) {
            answers.put(unit, safeProbe(unit.device));
        }
        synchronized (lock) {
            boolean restored = false;
            List<HealthTransition> transitions = new ArrayList<>();
            List<String> stillFailing = new ArrayList<>();
            for (Map.Entry<Unit, Optional<String>> answer : answers.entrySet()) {
                Unit unit = answer.getKey();
                if (units.get(unit.device.uuid()) != unit) {
                    continue;
                }
                boolean wasHealthy = unit.healthy();
                if (answer.getValue().isPresent()) {
                    stillFailing.add(unit.device.uuid() + ": " + answer.getValue().get());
                    if (wasHealthy) {
                        unit.lost = "NVML probe failed: " + answer.getValue().get();
                        transitions.add(new HealthTransition(unit.device.uuid(), false, unit.reason(), now));
                    }
                    continue;
                }
                String was = wasHealthy ? "" : unit.reason();
                if (unit.lost != null) {
                    unit.lost = null;
                    restored |= nvmlLost;
                }
                if (unit.xid != null && unit.xid.mayRecoverAt(now, policy.quietPeriod())) {
                    unit.xid = null;
                }
                if (!wasHealthy && unit.healthy()) {
                    transitions.add(new HealthTransition(unit.device.uuid(), true, "NVML probe answered after " + was, now));
                }
            }
            if (restored) {
                nvmlLost = false;
            }
            publish(transitions);
            return new CheckResult(transitions, restored, stillFailing);
        }
    }

    private Optional<String> safeProbe(PhysicalDevice device) {
        try {
            return probe.probe(device);
        } catch (RuntimeException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
    }

    private void publish(List<HealthTransition> transitions) {
        if (!transitions.isEmpty()) {
            listener.onHealthChanged(List.copyOf(transitions));
        }
    }

    /** NVIDIA's matching: a GPU takes every event on its UUID; a MIG device those for the whole GPU or its own instances. */
    private static boolean hitBy(PhysicalDevice device, String gpuUuid, OptionalInt gi, OptionalInt ci) {
        if (!device.gpuUuid().equals(gpuUuid)) {
            return false;
        }
        if (device instanceof MigInstance mig && gi.isPresent()) {
            return mig.gpuInstanceId() == gi.getAsInt()
                    && (ci.isEmpty() || mig.computeInstanceId() == ci.getAsInt());
        }
        return true;
    }

    /**
     * The outcome of one check.
     *
     * @param transitions   devices that changed health (recovered, or stopped answering)
     * @param nvmlRestored  NVML had been lost and answered again: the event monitor should be restarted
     * @param stillFailing  devices probed that did not answer, with the reason
     */
    public record CheckResult(List<HealthTransition> transitions, boolean nvmlRestored, List<String> stillFailing) {

        /** The transitions back to Healthy. */
        public List<HealthTransition> recovered() {
            return transitions.stream().filter(HealthTransition::healthy).toList();
        }
    }

    private record XidFault(long xid, Instant lastAt, boolean recoverable) {
        XidFault again(long next, Instant at, boolean nextRecoverable) {
            // the worst XID wins: one that needs a reset keeps the device down
            boolean stillRecoverable = recoverable && nextRecoverable;
            return new XidFault(stillRecoverable || !nextRecoverable ? next : xid, at, stillRecoverable);
        }

        boolean mayRecoverAt(Instant now, Duration quietPeriod) {
            return recoverable && !now.isBefore(lastAt.plus(quietPeriod));
        }
    }

    private static final class Unit {
        final PhysicalDevice device;
        XidFault xid;
        String lost;

        Unit(PhysicalDevice device) {
            this.device = device;
        }

        Unit with(PhysicalDevice next) {
            Unit unit = new Unit(next);
            unit.xid = xid;
            unit.lost = lost;
            return unit;
        }

        boolean healthy() {
            return xid == null && lost == null;
        }

        String reason() {
            List<String> reasons = new ArrayList<>();
            if (xid != null) {
                reasons.add("XID " + xid.xid() + (xid.recoverable() ? "" : " (needs a GPU reset: "
                        + XidTable.RESET_REQUIRED.getOrDefault(xid.xid(), "not recoverable") + ")"));
            }
            if (lost != null) {
                reasons.add(lost);
            }
            return String.join("; ", reasons);
        }
    }
}
