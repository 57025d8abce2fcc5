package dev.kgpu.sim.pluginwatcher;

import java.util.List;
import java.util.Optional;

/**
 * A DRA driver's answer for one claim of NodePrepareResources: the devices and their CDI names, or the error (then
 * the kubelet ignores the devices and fails the pod's start with it).
 */
public record DraClaimResult(List<Device> devices, Optional<String> error) {

    public DraClaimResult {
        devices = List.copyOf(devices);
    }

    public boolean prepared() {
        return error.isEmpty();
    }

    /** Every CDI device ID of every device, in order: what the kubelet hands the runtime for the whole claim. */
    public List<String> cdiDeviceIds() {
        return devices.stream().flatMap(d -> d.cdiDeviceIds().stream()).toList();
    }

    /** One device: the requests it serves (empty: all), its pool and name, its CDI device IDs. */
    public record Device(List<String> requestNames, String poolName, String deviceName, List<String> cdiDeviceIds) {
        public Device {
            requestNames = List.copyOf(requestNames);
            cdiDeviceIds = List.copyOf(cdiDeviceIds);
        }
    }
}
