package dev.kgpu.agent.settings;

import dev.kgpu.config.v1.ValueType;
import java.util.List;
import java.util.Optional;

/**
 * The HTTP port an agent serves its health checks (and metrics) on. Quarkus reads {@code QUARKUS_HTTP_PORT} itself
 * when it starts; an agent lists {@link #PORT} among its settings so that a bad value is refused with the others,
 * in one line before Quarkus starts, instead of ending in Quarkus' stack trace when it binds.
 */
public final class HttpSettings {

    /** {@code QUARKUS_HTTP_PORT}: checked only; empty or unset keeps the agent's default port. */
    public static final Setting<Optional<Integer>> PORT = Setting.of(List.of(), List.of("QUARKUS_HTTP_PORT"),
            ValueType.optional(ValueType.wholeNumber(0, 65535, "")), Optional.empty(),
            "kgpu: the port of the health checks (/q/health/*) and /q/metrics, 0 for any free one (default: the"
                    + " agent's, in its README)");

    private HttpSettings() {
    }
}
