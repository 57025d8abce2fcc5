package dev.kgpu.plugin.dra.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a claim's {@code status.allocation.devices.config}: where it came from ({@code FromClass} or
 * {@code FromClaim}), the requests it is for (none: all), and its opaque parameters with their driver (empty when the
 * entry is not opaque). Immutable.
 *
 * @param parameters the opaque parameters as JSON, when the entry has any
 */
public record ClaimConfig(String source, List<String> requests, Optional<String> driver, Optional<String> parameters) {

    public static final String FROM_CLASS = "FromClass";
    public static final String FROM_CLAIM = "FromClaim";

    public ClaimConfig {
        Objects.requireNonNull(source, "source");
        requests = List.copyOf(requests);
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(parameters, "parameters");
    }
}
