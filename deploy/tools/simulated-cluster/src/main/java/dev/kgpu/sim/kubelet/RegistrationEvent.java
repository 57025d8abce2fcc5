package dev.kgpu.sim.kubelet;

import java.time.Instant;
import java.util.Optional;

/** One Register call and the kubelet's answer: accepted, or the error the plugin received. */
public record RegistrationEvent(String version, String resourceName, String endpoint, Optional<String> error, Instant at) {

    public boolean accepted() {
        return error.isEmpty();
    }
}
