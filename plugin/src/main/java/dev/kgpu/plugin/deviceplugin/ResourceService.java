package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.plugin.deviceplugin.allocation.AllocationException;
import dev.kgpu.plugin.deviceplugin.allocation.Allocator;
import dev.kgpu.plugin.deviceplugin.allocation.ContainerAllocation;
import dev.kgpu.plugin.deviceplugin.allocation.PreferredAllocator;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.DeviceStatus;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.health.HealthListener;
import dev.kgpu.plugin.health.HealthTransition;
import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.DeviceUnit;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Everything the kubelet can ask of one resource, free of gRPC: the device list with health (pushed to
 * every watcher whenever it changes), preferred allocation and allocation, whose devices it reserves in the node's
 * {@link AllocationLedger}. It listens to the {@code HealthTracker} and to the ledger: a health change, or a DRA claim
 * taking or releasing a GPU, recomputes the list. A device a DRA claim holds (or whose GPU, or one of whose MIG devices,
 * a claim holds) is listed Unhealthy while held: the kubelet then counts it out of the node's allocatable and hands it
 * to no new pod, while pods already running keep theirs.
 *
 * <p>Watchers are handed each new list through a latest-value slot and called on a virtual thread of
 * their own ({@value #DELIVERY_THREADS}), one call at a time per watcher and never under a lock: a watcher
 * may write to a stream without locking, a slow one only ever skips to the latest list, and no thread that
 * changes health (NVML's event thread, the health check) waits on a stream.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public final class ResourceService implements HealthListener, AllocationLedger.Listener {

    static final String DELIVERY_THREADS = "plugin-list-and-watch-";
    private static final Executor DELIVERY = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name(DELIVERY_THREADS, 0).factory());
    private static final System.Logger LOG = System.getLogger(ResourceService.class.getName());

    private final PluginResource resource;
    private final Predicate<String> healthy;
    private final Allocator allocator;
    private final PreferredAllocator preferredAllocator;
    private final AllocationLedger ledger;
    private final InstantSource clock;

    private final Object lock = new Object();
    private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
    // guarded by lock
    private List<DeviceStatus> current;

    /**
     * @param healthy whether a physical device (by UUID) is healthy now
     * @param ledger  the node's record of who holds which GPU: each Allocate reserves its devices before it answers
     * @param clock   when a reservation is made
     */
    public ResourceService(PluginResource resource, Predicate<String> healthy, Allocator allocator,
                           PreferredAllocator preferredAllocator, AllocationLedger ledger, InstantSource clock) {
        this.resource = Objects.requireNonNull(resource, "resource");
        this.healthy = Objects.requireNonNull(healthy, "healthy");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.preferredAllocator = Objects.requireNonNull(preferredAllocator, "preferredAllocator");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.current = compute();
    }

    public PluginResource resource() {
        return resource;
    }

    /**
     * Sends the current list to {@code watcher} and every changed list after, as described above; returns
     * what stops it.
     */
    public Runnable watch(Consumer<List<DeviceStatus>> watcher) {
        Watcher added = new Watcher(watcher);
        synchronized (lock) {
            watchers.add(added);
            added.offer(current);
        }
        return () -> {
            added.stopped = true;
            watchers.remove(added);
        };
    }

    /** A claim took or released a GPU: recompute the list and hand it to the watchers when it changed. */
    @Override
    public void ledgerChanged(AllocationLedger.View view) {
        recompute();
    }

    /** Health changed: recompute the list and hand it to the watchers when it changed. */
    @Override
    public void onHealthChanged(List<HealthTransition> transitions) {
        recompute();
    }

    private void recompute() {
        synchronized (lock) {
            List<DeviceStatus> next = compute();
            if (next.equals(current)) {
                return;
            }
            current = next;
            for (Watcher watcher : watchers) {
                watcher.offer(next);
            }
        }
    }

    private List<DeviceStatus> compute() {
        AllocationLedger.View held = ledger.view();
        List<DeviceStatus> list = new ArrayList<>(resource.devices().size());
        for (AdvertisedDevice device : resource.devices()) {
            list.add(new DeviceStatus(device.id(), healthy.test(device.uuid()) && !held.heldByDra(DeviceUnit.of(device.device())),
                    device.device().numaNode()));
        }
        return List.copyOf(list);
    }

    /** Stops hearing of the ledger's changes (the resource is no longer served). */
    public void stopListeningToLedger() {
        ledger.removeListener(this);
    }

    /** @throws AllocationException for unknown IDs and impossible sizes */
    public List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size) {
        return preferredAllocator.preferred(resource, available, mustInclude, size);
    }

    /**
     * The answer for one container, its devices reserved in the node's ledger.
     *
     * @throws AllocationException for unknown IDs, refused replica counts, and devices the ledger says another holds
     */
    public ContainerAllocation allocate(List<String> deviceIds) {
        ContainerAllocation allocation = allocator.allocate(resource, deviceIds);
        if (ledger.reserveForDevicePlugin(resource.name(), deviceIds, clock.instant())
                instanceof AllocationLedger.Reservation.Refused refused) {
            throw new AllocationException.Held(resource.name(), refused.message());
        }
        return allocation;
    }

    /** One watcher's latest-value slot: {@link #offer} never blocks; one delivery runs at a time. */
    private static final class Watcher {
        private final Consumer<List<DeviceStatus>> target;
        private final AtomicReference<List<DeviceStatus>> latest = new AtomicReference<>();
        private final AtomicBoolean delivering = new AtomicBoolean();
        volatile boolean stopped;

        Watcher(Consumer<List<DeviceStatus>> target) {
            this.target = target;
        }

        void offer(List<DeviceStatus> list) {
            latest.set(list);
            if (delivering.compareAndSet(false, true)) {
                DELIVERY.execute(this::deliver);
            }
        }

        private void deliver() {
            while (true) {
                List<DeviceStatus> next = latest.getAndSet(null);
                if (next == null) {
                    delivering.set(false);
                    // an offer between the read and the reset found delivering still set: take it over
                    if (latest.get() == null || !delivering.compareAndSet(false, true)) {
                        return;
                    }
                    continue;
                }
                if (!stopped) {
                    try {
                        target.accept(next);
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "a device-list watcher failed", e);
                    }
                }
            }
        }
    }
}
