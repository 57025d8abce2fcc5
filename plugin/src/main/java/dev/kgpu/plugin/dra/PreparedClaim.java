package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.node.ClaimRef;
import java.util.List;
import java.util.Objects;

/** A claim this driver prepared, with its devices, as the checkpoint keeps it. Immutable. */
public record PreparedClaim(ClaimRef claim, List<PreparedDevice> devices) {

    public PreparedClaim {
        Objects.requireNonNull(claim, "claim");
        devices = List.copyOf(devices);
    }
}
