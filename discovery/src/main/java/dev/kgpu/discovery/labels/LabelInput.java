package dev.kgpu.discovery.labels;

import java.time.Instant;
import java.util.Objects;

/**
 * Everything one labelling pass knows: what the node has, how labels are configured, and the time of
 * the pass (for {@code gfd.timestamp}).
 */
public record LabelInput(NodeSnapshot node, LabelSettings settings, Instant now) {

    public LabelInput {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(now, "now");
    }
}
