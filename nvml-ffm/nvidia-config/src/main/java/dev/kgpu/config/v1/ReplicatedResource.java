package dev.kgpu.config.v1;

import dev.kgpu.config.InvalidConfigException;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of {@code sharing.timeSlicing.resources} or {@code sharing.mps.resources}: advertise
 * {@code replicas} shares of each selected device of resource {@code name}, under {@code rename} when
 * present. {@code renameByDefault} has already been applied: an entry without its own {@code rename}
 * under {@code renameByDefault: true} carries {@code <name>.shared} here.
 *
 * @param name     the resource whose devices are shared, e.g. {@code nvidia.com/gpu}
 * @param rename   the name to advertise the replicas under, e.g. {@code nvidia.com/gpu.shared}
 * @param devices  which devices of {@code name} are shared
 * @param replicas how many shares each device gives, at least 2
 */
public record ReplicatedResource(ResourceName name, Optional<ResourceName> rename, ReplicatedDevices devices, int replicas) {

    public ReplicatedResource {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(rename, "rename");
        Objects.requireNonNull(devices, "devices");
        try {
            checkReplicas(replicas);
        } catch (IllegalArgumentException e) {
            throw InvalidConfigException.of("replicas", replicas, e.getMessage());
        }
    }

    /**
     * The rule for {@code replicas}, shared by this constructor and the decoder (which checks each
     * field on its own so that every failure is reported, not only the first).
     *
     * @throws IllegalArgumentException whose message is the reason, worded to follow "but it"
     */
    static void checkReplicas(int replicas) {
        if (replicas < 2) {
            throw new IllegalArgumentException("must be at least 2");
        }
    }

    /** The name the replicas are advertised under: {@code rename} if present, else {@code name}. */
    public ResourceName advertisedName() {
        return rename.orElse(name);
    }
}
