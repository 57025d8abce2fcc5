package dev.kgpu.plugin.resources;

import dev.kgpu.plugin.allocation.AllocationException;
import dev.kgpu.plugin.allocation.Allocator;
import dev.kgpu.plugin.allocation.ContainerAllocation;
import dev.kgpu.plugin.allocation.PreferredAllocator;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.DeviceStatus;
import dev.kgpu.plugin.devices.PluginResource;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Everything the kubelet can ask of one resource, free of gRPC: the device list with health
 * (pushed to every watcher whenever it changes), preferred allocation and allocation.
 *
 * <p>Thread-safety: all methods may be called from any thread. Watchers are called one at a time, in
 * order, so a watcher may write to a stream without its own locking.
 */
public final class ResourceService {

    private final PluginResource resource;
    private final Predicate<String> healthy;
    private final Allocator allocator;
    private final PreferredAllocator preferredAllocator;
    private final PluginEvents events;

    private final Object lock = new Object();
    private final List<Consumer<List<DeviceStatus>>> watchers = new CopyOnWriteArrayList<>();
    // guarded by lock
    private List<DeviceStatus> current;

    /** @param healthy whether a physical device (by UUID) is healthy now */
    public ResourceService(PluginResource resource, Predicate<String> healthy, Allocator allocator,
                           PreferredAllocator preferredAllocator, PluginEvents events) {
        this.resource = Objects.requireNonNull(resource, "resource");
        this.healthy = Objects.requireNonNull(healthy, "healthy");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.preferredAllocator = Objects.requireNonNull(preferredAllocator, "preferredAllocator");
        this.events = Objects.requireNonNull(events, "events");
        this.current = compute();
    }

    public PluginResource resource() {
        return resource;
    }

    /** The device list now. */
    public List<DeviceStatus> devices() {
        synchronized (lock) {
            return current;
        }
    }

    /**
     * Sends the current list to {@code watcher} now and every changed list after; returns what stops it.
     */
    public Runnable watch(Consumer<List<DeviceStatus>> watcher) {
        synchronized (lock) {
            watchers.add(watcher);
            watcher.accept(current);
        }
        return () -> watchers.remove(watcher);
    }

    /** Re-reads health; pushes the new list to every watcher when it changed. Returns whether it did. */
    public boolean refresh() {
        synchronized (lock) {
            List<DeviceStatus> next = compute();
            if (next.equals(current)) {
                return false;
            }
            current = next;
            for (Consumer<List<DeviceStatus>> watcher : watchers) {
                watcher.accept(next);
            }
            return true;
        }
    }

    public int watcherCount() {
        return watchers.size();
    }

    private List<DeviceStatus> compute() {
        List<DeviceStatus> list = new ArrayList<>(resource.devices().size());
        for (AdvertisedDevice device : resource.devices()) {
            list.add(new DeviceStatus(device.id(), healthy.test(device.uuid()), device.device().numaNode()));
        }
        return List.copyOf(list);
    }

    /** @throws AllocationException for unknown IDs and impossible sizes */
    public List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size) {
        return preferredAllocator.preferred(resource, available, mustInclude, size);
    }

    /** @throws AllocationException for unknown IDs and refused replica counts */
    public ContainerAllocation allocate(List<String> deviceIds) {
        try {
            ContainerAllocation allocation = allocator.allocate(resource, deviceIds);
            events.allocation(resource.name(), deviceIds.size(), null);
            return allocation;
        } catch (AllocationException e) {
            events.allocation(resource.name(), deviceIds.size(), e.getMessage());
            throw e;
        }
    }
}
