package dev.kgpu.plugin.node;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Who holds which of the node's GPUs: the one record both front-ends share, so that a GPU the device plugin handed
 * out is not prepared for a DRA claim, and a GPU a claim holds is not handed out by the device plugin. Units are
 * {@link DeviceUnit}s (a GPU conflicts with its MIG devices); holds are the device plugin's (from its own Allocate,
 * then confirmed by what the kubelet reports: {@link KubeletAllocations}) and DRA claims' (from NodePrepareResources,
 * and the claim checkpoint at start).
 *
 * <p>The node runtime owns it and hands it to the front-ends ({@link NodeContext#ledger()}): the device plugin reserves
 * on Allocate, before it answers; the DRA driver reserves on prepare, before it writes anything, releases on unprepare
 * and restores its checkpoint at start. Every call is atomic and never waits on I/O; listeners hear each change after
 * it, with the holds as they are when told. Thread-safe.
 */
public interface AllocationLedger {

    /** The node's units, from the inventory it read last; the node runtime tells it before it serves. */
    void units(PhysicalUnits units);

    /** The device plugin's Allocate of {@code deviceIds} of {@code resource}, before it answers. */
    Reservation reserveForDevicePlugin(String resource, List<String> deviceIds, Instant now);

    /** NodePrepareResources of {@code claim} with {@code devices}, before anything is written for it. */
    Reservation reserveForClaim(ClaimRef claim, List<ClaimDevice> devices, Instant now);

    /** The claim is unprepared (or its prepare failed after the reservation): its holds end. */
    void releaseClaim(String claimUid);

    /** A claim prepared before this start (the claim checkpoint): recorded as held since {@code since}, refused never. */
    void restoreClaim(ClaimRef claim, List<ClaimDevice> devices, Instant since);

    /**
     * What the kubelet's device manager reports it allocated (PodResources, or its checkpoint): the whole picture,
     * replacing what an earlier report said, whichever source that came from.
     */
    void observe(KubeletAllocations allocations);

    /** The holds now. */
    View view();

    /** Tells {@code listener} of every change from now on. */
    void addListener(Listener listener);

    /** Stops telling {@code listener}. */
    void removeListener(Listener listener);

    /** The ledger of a node that needs none: only the device plugin runs, and the kubelet keeps its devices apart. */
    static AllocationLedger none() {
        return NoLedger.INSTANCE;
    }

    /** A reservation's answer. */
    sealed interface Reservation {

        /** The holds are recorded. */
        record Granted() implements Reservation {
        }

        /** Nothing is recorded: each device asked for is held by someone it cannot be shared with. */
        record Refused(List<Conflict> conflicts) implements Reservation {
            public Refused {
                conflicts = List.copyOf(conflicts);
                if (conflicts.isEmpty()) {
                    throw new IllegalArgumentException("a refusal names at least one conflict");
                }
            }

            /** One line naming each holder in the way. */
            public String message() {
                return String.join("; ", conflicts.stream().map(Conflict::describe).toList());
            }
        }
    }

    /** {@code unit} is held by {@code holder}. */
    record Conflict(DeviceUnit unit, Hold holder) {
        public Conflict {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(holder, "holder");
        }

        /** e.g. {@code GPU-... is held by claim ml/a100-pod-7 (5e1c...) since ...}. */
        public String describe() {
            return unit.uuid() + " is held by " + holder.describe();
        }
    }

    /** One device of a claim: its name in the node's pool, its unit, and whether the claim asked for admin access. */
    record ClaimDevice(String name, DeviceUnit unit, boolean adminAccess) {
        public ClaimDevice {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(unit, "unit");
        }
    }

    /** Someone holding a unit. */
    sealed interface Hold {

        DeviceUnit unit();

        Instant since();

        /** In words, for refusals, health checks and logs. */
        String describe();

        /**
         * A device-plugin ID handed out: provisional ({@link Source#ALLOCATE}, no pod yet) until the kubelet reports
         * it.
         */
        record DevicePluginHold(DeviceUnit unit, String resource, String deviceId, Instant since, Source source,
                                Optional<KubeletAllocations.Pod> pod) implements Hold {
            public DevicePluginHold {
                Objects.requireNonNull(unit, "unit");
                Objects.requireNonNull(resource, "resource");
                Objects.requireNonNull(deviceId, "deviceId");
                Objects.requireNonNull(since, "since");
                Objects.requireNonNull(source, "source");
                Objects.requireNonNull(pod, "pod");
            }

            @Override
            public String describe() {
                return pod.map(p -> resource + " in pod " + p + " since " + since)
                        .orElse(resource + ", allocated by the kubelet at " + since + " (pod not reported yet)");
            }
        }

        /** A device of a prepared DRA claim. */
        record DraHold(DeviceUnit unit, ClaimRef claim, String device, Instant since, boolean adminAccess) implements Hold {
            public DraHold {
                Objects.requireNonNull(unit, "unit");
                Objects.requireNonNull(claim, "claim");
                Objects.requireNonNull(device, "device");
                Objects.requireNonNull(since, "since");
            }

            @Override
            public String describe() {
                return "claim " + claim + " since " + since;
            }
        }
    }

    /** Where a device-plugin hold was learnt. */
    enum Source {
        /** The device plugin's own Allocate answer. */
        ALLOCATE,
        /** The kubelet's PodResources API. */
        POD_RESOURCES,
        /** The kubelet's device-manager checkpoint file. */
        KUBELET_CHECKPOINT
    }

    /**
     * What the kubelet's device manager reported it allocated, at {@code listedAt}, read from {@code source}.
     *
     * @param allocations each container's devices of one resource
     */
    record KubeletAllocations(Instant listedAt, Source source, List<Allocation> allocations) {
        public KubeletAllocations {
            Objects.requireNonNull(listedAt, "listedAt");
            Objects.requireNonNull(source, "source");
            allocations = List.copyOf(allocations);
        }

        /**
         * A pod, as the kubelet names it: by namespace and name (PodResources), or by UID only (the device-manager
         * checkpoint), the other parts empty.
         */
        public record Pod(String namespace, String name, String uid) {
            @Override
            public String toString() {
                return name.isEmpty() ? "with UID " + uid : namespace + "/" + name;
            }
        }

        /** The device-plugin IDs of {@code resource} a container of {@code pod} was allocated. */
        public record Allocation(String resource, List<String> deviceIds, Pod pod, String container) {
            public Allocation {
                deviceIds = List.copyOf(deviceIds);
            }
        }
    }

    /** The holds at one moment. Immutable. */
    interface View {

        /** Every hold, device plugin's then claims', in the order they were made. */
        List<Hold> entries();

        /** The holds of {@code unit} and of the units it conflicts with. */
        default List<Hold> holders(DeviceUnit unit) {
            return entries().stream().filter(h -> h.unit().conflicts(unit)).toList();
        }

        /** Whether a DRA claim holds {@code unit}, or a unit it conflicts with (admin access holds nothing). */
        default boolean heldByDra(DeviceUnit unit) {
            return holders(unit).stream().anyMatch(h -> h instanceof Hold.DraHold dra && !dra.adminAccess());
        }

        /** Whether the device plugin holds {@code unit}, or a unit it conflicts with. */
        default boolean heldByDevicePlugin(DeviceUnit unit) {
            return holders(unit).stream().anyMatch(Hold.DevicePluginHold.class::isInstance);
        }
    }

    /** Told of each change, after the ledger released its lock. Must not block. */
    @FunctionalInterface
    interface Listener {
        void ledgerChanged(View view);
    }
}
