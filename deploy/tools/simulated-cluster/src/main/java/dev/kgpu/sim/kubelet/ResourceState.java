package dev.kgpu.sim.kubelet;

import java.time.Instant;
import java.util.List;

/**
 * What the simulated kubelet knows about one extended resource.
 *
 * @param resourceName                   e.g. {@code nvidia.com/gpu}
 * @param endpoint                       the plugin's socket file name from its last registration
 * @param preferredAllocationAvailable   from GetDevicePluginOptions
 * @param preStartRequired               from GetDevicePluginOptions
 * @param devices                        the last complete list; after the stream ended every device is unhealthy
 * @param connected                      whether a ListAndWatch stream is open now
 * @param registrations                  how many registrations for this resource were accepted so far
 * @param updates                        how many ListAndWatch messages arrived so far (over all registrations)
 * @param updatedAt                      when the device list last changed
 */
public record ResourceState(
        String resourceName,
        String endpoint,
        boolean preferredAllocationAvailable,
        boolean preStartRequired,
        List<DeviceState> devices,
        boolean connected,
        int registrations,
        long updates,
        Instant updatedAt) {

    public ResourceState {
        devices = List.copyOf(devices);
    }

    /** Capacity as the kubelet reports it: every device, healthy or not. */
    public long capacity() {
        return devices.size();
    }

    /** Allocatable as the kubelet reports it: the healthy devices. */
    public long allocatable() {
        return devices.stream().filter(DeviceState::healthy).count();
    }

    public List<String> deviceIds() {
        return devices.stream().map(DeviceState::id).toList();
    }

    public List<String> healthyIds() {
        return devices.stream().filter(DeviceState::healthy).map(DeviceState::id).toList();
    }

    public List<String> unhealthyIds() {
        return devices.stream().filter(d -> !d.healthy()).map(DeviceState::id).toList();
    }
}
