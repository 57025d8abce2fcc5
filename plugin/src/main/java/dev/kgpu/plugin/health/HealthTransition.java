package dev.kgpu.plugin.health;

import java.time.Instant;

/** A device changed health: {@code healthy} is the new state, {@code reason} says why. */
public record HealthTransition(String uuid, boolean healthy, String reason, Instant at) {
}
