package dev.kgpu.plugin.testing;

import dev.kgpu.plugin.devices.DeviceEvents;
import dev.kgpu.plugin.devices.DeviceProbe;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory device source for supervisor tests that need no NVML: a fixed inventory, probes that fail
 * for chosen UUIDs, and a health watch the test drives by hand. Thread-safe.
 */
public final class FakeDeviceSource implements DeviceSource.Factory {

    private volatile NodeInventory inventory;
    private volatile String openFailure;
    private final Set<String> failingProbes = ConcurrentHashMap.newKeySet();
    private volatile DeviceEvents sink;
    public final AtomicInteger opens = new AtomicInteger();
    public final AtomicInteger watches = new AtomicInteger();
    public final AtomicInteger openSources = new AtomicInteger();
    /** Runs when a source closes, on the closing thread. */
    public volatile Runnable onClose = () -> { };

    public FakeDeviceSource(NodeInventory inventory) {
        this.inventory = inventory;
    }

    public void setInventory(NodeInventory inventory) {
        this.inventory = inventory;
    }

    /** From now on opening fails with {@code message}; null makes it succeed again. */
    public void failOpen(String message) {
        this.openFailure = message;
    }

    public void failProbe(String uuid) {
        failingProbes.add(uuid);
    }

    public void answerProbes() {
        failingProbes.clear();
    }

    /** Delivers a critical XID as the NVML watch thread would. */
    public void xid(String gpuUuid, long xid) {
        currentSink().xid(gpuUuid, xid, OptionalInt.empty(), OptionalInt.empty());
    }

    /** Fails the watch as NVML's monitor does when the driver goes away. */
    public void loseNvml(String reason) {
        DeviceEvents current = currentSink();
        sink = null;
        current.watchFailed(reason);
    }

    public boolean watching() {
        return sink != null;
    }

    private DeviceEvents currentSink() {
        DeviceEvents current = sink;
        if (current == null) {
            throw new IllegalStateException("no health watch is running");
        }
        return current;
    }

    @Override
    public DeviceSource open() {
        opens.incrementAndGet();
        if (openFailure != null) {
            throw new DeviceSourceException(openFailure, null);
        }
        openSources.incrementAndGet();
        return new DeviceSource() {
            @Override
            public NodeInventory inventory() {
                return inventory;
            }

            @Override
            public DeviceProbe probe() {
                return device -> failingProbes.contains(device.uuid()) ? Optional.of("GPU is lost") : Optional.empty();
            }

            @Override
            public Watch watch(List<PhysicalDevice> devices, DeviceEvents healthSink) {
                watches.incrementAndGet();
                sink = healthSink;
                return () -> {
                    if (sink == healthSink) {
                        sink = null;
                    }
                };
            }

            @Override
            public void close() {
                onClose.run();
                openSources.decrementAndGet();
            }
        };
    }
}
