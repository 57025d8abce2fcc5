package dev.kgpu.plugin.deviceplugin.allocation;

/**
 * A request the plugin refuses: the kubelet's gRPC call fails with INVALID_ARGUMENT (FAILED_PRECONDITION for
 * {@link Held}) and this message.
 */
public abstract sealed class AllocationException extends RuntimeException {

    AllocationException(String message) {
        super(message);
    }

    /** An ID the resource does not list. */
    public static final class UnknownDevice extends AllocationException {
        UnknownDevice(String resource, String id) {
            super("invalid allocation request for '" + resource + "': unknown device: " + id);
        }
    }

    /** More than one replica in one container while {@code failRequestsGreaterThanOne} is set. */
    public static final class TooManyReplicas extends AllocationException {
        TooManyReplicas(String resource, int requested) {
            super("request for '" + resource + ": " + requested
                    + "' too large: maximum request size for shared resources is 1");
        }
    }

    /** Devices the node's allocation ledger says someone else holds (a DRA claim): the request is well-formed. */
    public static final class Held extends AllocationException {
        public Held(String resource, String holders) {
            super("allocation request for '" + resource + "' refused: " + holders);
        }
    }

    /** A request that cannot be met as asked (sizes, empty lists). */
    public static final class BadRequest extends AllocationException {
        BadRequest(String message) {
            super(message);
        }
    }
}
