package dev.kgpu.plugin.dra;

import java.util.List;
import java.util.Objects;

/** The answer for one claim of a NodePrepareResources call. */
public sealed interface ClaimResult {

    /** Prepared: the devices and the CDI names the kubelet hands the runtime. */
    record Prepared(List<PreparedDevice> devices) implements ClaimResult {
        public Prepared {
            devices = List.copyOf(devices);
        }
    }

    /** Not prepared, and why, in one line the kubelet shows in the pod's events. */
    record Failed(String error) implements ClaimResult {
        public Failed {
            Objects.requireNonNull(error, "error");
        }
    }
}
