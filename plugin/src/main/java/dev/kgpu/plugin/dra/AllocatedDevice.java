package dev.kgpu.plugin.dra;

import java.util.Objects;

/**
 * One entry of a ResourceClaim's {@code status.allocation.devices.results}: the device the scheduler picked for a
 * request. Immutable.
 *
 * @param request the request it serves, {@code <request>} or {@code <request>/<subrequest>}
 * @param driver  the driver that publishes the device
 * @param pool    its pool (this driver: the node's name)
 * @param device  its name in the pool
 * @param adminAccess the request asked for admin access: the device is reachable for monitoring or maintenance while
 *                other claims hold it, so it neither blocks nor is blocked by them
 */
public record AllocatedDevice(String request, String driver, String pool, String device, boolean adminAccess) {

    public AllocatedDevice {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(device, "device");
    }

    /** A device allocated without admin access. */
    public AllocatedDevice(String request, String driver, String pool, String device) {
        this(request, driver, pool, device, false);
    }

    /** The request without its subrequest ({@code main/sub} → {@code main}), as the kubelet expects it back. */
    public String requestName() {
        int slash = request.indexOf('/');
        return slash < 0 ? request : request.substring(0, slash);
    }
}
