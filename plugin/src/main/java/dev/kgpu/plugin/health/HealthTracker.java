package dev.kgpu.plugin.health;

import dev.kgpu.plugin.devices.DeviceProbe;
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
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The health of every device the plugin advertises, and the rules that change it.
 *
 * <ul>
 *   <li>A critical XID ({@link HealthPolicy#isCritical}) marks the device Unhealthy at once: the GPU and all
 *       its MIG devices, or only the MIG device whose GPU/compute instance the event names.</li>
 *   <li>{@link #onNvmlLost(String)} (the event monitor failed, the driver went away) marks every device
 *       Unhealthy: a node must not advertise GPUs it cannot serve.</li>
 *   <li>{@link #check(DeviceProbe)} (called periodically) probes every device: a Healthy one that does not
 *       answer turns Unhealthy; an Unhealthy one that may recover (lost with NVML, failing probes, or marked
 *       by a recoverable XID whose {@link HealthPolicy#quietPeriod()} has passed without a new critical XID)
 *       returns to Healthy when it answers.</li>
 * </ul>
 * Every change is told to the {@link HealthListener}s, after the tracker released its lock.
 *
 * <p>Time comes from the injected {@link InstantSource}, so tests move it instead of sleeping.
 * Thread-safety: all methods may be called from any thread.
 */
public final class HealthTracker {

    private final HealthPolicy policy;
    private final InstantSource clock;
    private final List<HealthListener> listeners = new CopyOnWriteArrayList<>();

    private final Object lock = new Object();
    // guarded by lock
    private Map<String, Unit> units = Map.of();
    private boolean nvmlLost;

    public HealthTracker(HealthPolicy policy, InstantSource clock) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Tells {@code listener} about every health change from now on, until it is removed. */
    public void addListener(HealthListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(HealthListener listener) {
        listeners.remove(listener);
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

    /** Why device {@code uuid} is not Healthy (an XID, NVML lost, a failed probe, not tracked); empty when it is. */
    public Optional<String> problem(String uuid) {
        synchronized (lock) {
            Unit unit = units.get(uuid);
            if (unit == null) {
                return Optional.of("its health is not watched");
            }
            return unit.healthy() ? Optional.empty() : Optional.of(unit.reason());
        }
    }

    /**
     * An XID event from NVML. {@code gpuInstanceId}/{@code computeInstanceId} are empty when the error
     * concerns the whole GPU. A critical XID marks the devices it hits Unhealthy (a device already Unhealthy
     * restarts its quiet period); an ignored XID, or one on a GPU not tracked, changes nothing.
     */
    public void onXid(String gpuUuid, long xid, OptionalInt gpuInstanceId, OptionalInt computeInstanceId) {
        if (!policy.isCritical(xid)) {
            return;
        }
        Instant now = clock.instant();
        boolean recovers = policy.recovers(xid);
        List<HealthTransition> transitions = new ArrayList<>();
        synchronized (lock) {
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
        }
        publish(transitions);
    }

    /** NVML stopped answering (monitor failure, GPU lost, driver unloaded): every device turns Unhealthy. */
    public void onNvmlLost(String reason) {
        Instant now = clock.instant();
        List<HealthTransition> transitions = new ArrayList<>();
        synchronized (lock) {
            nvmlLost = true;
            for (Unit unit : units.values()) {
                boolean wasHealthy = unit.healthy();
                unit.lost = "NVML lost: " + reason;
                if (wasHealthy) {
                    transitions.add(new HealthTransition(unit.device.uuid(), false, unit.reason(), now));
                }
            }
        }
        publish(transitions);
    }

    /**
     * One periodic health check. Probes every Healthy device (one that no longer answers turns Unhealthy at
     * once) and every Unhealthy device that may recover now: those lost with NVML or failing a probe, and
     * those marked by a recoverable XID whose {@link HealthPolicy#quietPeriod()} has passed without a new
     * critical XID. A device that answers returns to Healthy. Probes run without the lock held; a device
     * that changed meanwhile (a new XID) keeps its new state.
     */
    public CheckResult check(DeviceProbe probe) {
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
            answers.put(unit, safeProbe(probe, unit.device));
        }
        boolean restored = false;
        List<HealthTransition> transitions = new ArrayList<>();
        List<String> stillFailing = new ArrayList<>();
        synchronized (lock) {
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
        }
        publish(transitions);
        return new CheckResult(transitions, restored, stillFailing);
    }

    private static Optional<String> safeProbe(DeviceProbe probe, PhysicalDevice device) {
        try {
            return probe.probe(device);
        } catch (RuntimeException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
    }

    private void publish(List<HealthTransition> transitions) {
        if (!transitions.isEmpty()) {
            List<HealthTransition> changed = List.copyOf(transitions);
            listeners.forEach(listener -> listener.onHealthChanged(changed));
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

        /** A check that probed nothing (no devices source to probe through). */
        public static final CheckResult NOTHING = new CheckResult(List.of(), false, List.of());

        public CheckResult {
            transitions = List.copyOf(transitions);
            stillFailing = List.copyOf(stillFailing);
        }

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
