package dev.kgpu.validator.core;

import java.util.Objects;

/**
 * A component did not validate. Thrown inside validators and ports; {@link ValidationPass} turns it into a
 * {@link Verdict.Failed}. It is the only exception the domain expects: anything else is a bug.
 */
public final class ComponentFailure extends RuntimeException {

    private final Layer layer;

    public ComponentFailure(Layer layer, String reason) {
        super(Objects.requireNonNull(reason, "reason"));
        this.layer = Objects.requireNonNull(layer, "layer");
    }

    public ComponentFailure(Layer layer, String reason, Throwable cause) {
        super(Objects.requireNonNull(reason, "reason"), cause);
        this.layer = Objects.requireNonNull(layer, "layer");
    }

    public Layer layer() {
        return layer;
    }

    /** The reason without the layer, one line. */
    public String reason() {
        return getMessage();
    }
}
