package dev.kgpu.sim.dra;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The DRA drivers registered with the node's kubelet, as its DRA manager calls them: NodePrepareResources and
 * NodeUnprepareResources of one driver. The simulated node's is the kubelet's plugin watcher with its DRA client
 * (plugin's test-jar), calling the real plugin over gRPC; a test may answer in-process.
 *
 * <p>Called on the {@code SchedulerAndKubelet}'s thread only.
 */
public interface DraDrivers {

    /**
     * NodePrepareResources of {@code driver} for {@code claims}: each claim's answer by UID (a claim missing from
     * the answer is an error).
     *
     * @throws DriverException when the driver is not registered or the call failed as a whole
     */
    Map<String, Prepared> prepare(String driver, List<Claim> claims);

    /**
     * NodeUnprepareResources of {@code driver} for {@code claims}: each claim's error by UID, empty when it was
     * unprepared.
     *
     * @throws DriverException when the driver is not registered or the call failed as a whole
     */
    Map<String, Optional<String>> unprepare(String driver, List<Claim> claims);

    /** A claim as the kubelet names it to a driver. */
    record Claim(String namespace, String name, String uid) {
        public Claim {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(uid, "uid");
        }
    }

    /** A driver's answer for one claim: its devices, or the error. */
    record Prepared(List<Device> devices, Optional<String> error) {
        public Prepared {
            devices = List.copyOf(devices);
        }
    }

    /**
     * One prepared device: the requests it serves (empty: all of the claim's), its pool and name, its CDI device
     * IDs (what the kubelet hands the container runtime).
     */
    record Device(List<String> requestNames, String pool, String device, List<String> cdiDeviceIds) {
        public Device {
            requestNames = List.copyOf(requestNames);
            cdiDeviceIds = List.copyOf(cdiDeviceIds);
        }
    }

    /** The driver is not registered, or its call failed as a whole (a gRPC error). */
    final class DriverException extends RuntimeException {
        public DriverException(String message) {
            super(message);
        }

        public DriverException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
