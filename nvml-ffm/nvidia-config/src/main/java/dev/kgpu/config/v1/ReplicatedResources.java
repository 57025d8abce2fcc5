package dev.kgpu.config.v1;

import dev.kgpu.config.InvalidConfigException;
import java.util.List;

/**
 * {@code sharing.timeSlicing} or {@code sharing.mps}, accepted by NVIDIA's rules (at least one resource,
 * replicas at least 2). Entries may name one resource several times and select overlapping devices, as in
 * NVIDIA's config; what that means on a node is the plugin's to decide (and to warn about).
 *
 * @param renameByDefault            advertise replicas as {@code <name>.shared} unless an entry renames them
 * @param failRequestsGreaterThanOne reject a container asking for more than one replica; the decoder
 *                                   defaults it to {@code false} for time-slicing and {@code true} for MPS
 * @param resources                  the entries, at least one
 */
public record ReplicatedResources(boolean renameByDefault, boolean failRequestsGreaterThanOne, List<ReplicatedResource> resources) {

    public ReplicatedResources {
        resources = List.copyOf(resources);
        if (resources.isEmpty()) {
            throw InvalidConfigException.of("resources", "[]", "must list at least one resource to share");
        }
    }

    /** Whether this block replicates anything (always, since replicas are at least 2 and resources non-empty). */
    public boolean isReplicated() {
        return resources.stream().anyMatch(r -> r.replicas() > 1);
    }
}
