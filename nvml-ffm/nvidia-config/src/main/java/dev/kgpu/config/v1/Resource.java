package dev.kgpu.config.v1;

import java.util.Objects;

/**
 * One entry of {@code resources.gpus} or {@code resources.mig}: devices whose name matches
 * {@code pattern} are advertised as {@code name}.
 */
public record Resource(ResourcePattern pattern, ResourceName name) {

    public Resource {
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(name, "name");
    }
}
