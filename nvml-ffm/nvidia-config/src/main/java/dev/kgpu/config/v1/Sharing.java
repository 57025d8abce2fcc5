package dev.kgpu.config.v1;

import java.util.Objects;
import java.util.Optional;

/**
 * {@code sharing}: time-slicing or MPS replicas. When both are configured MPS wins, as in NVIDIA's
 * {@code Sharing.SharingStrategy()}, and the decoder warns that {@code timeSlicing} is ignored.
 */
public record Sharing(Optional<ReplicatedResources> timeSlicing, Optional<ReplicatedResources> mps) {

    public static final Sharing NONE = new Sharing(Optional.empty(), Optional.empty());

    public Sharing {
        Objects.requireNonNull(timeSlicing, "timeSlicing");
        Objects.requireNonNull(mps, "mps");
    }

    /** {@code mps} if MPS replicates devices, else {@code time-slicing} if time-slicing does, else {@code none}. */
    public SharingStrategy strategy() {
        if (mps.filter(ReplicatedResources::isReplicated).isPresent()) {
            return SharingStrategy.MPS;
        }
        if (timeSlicing.filter(ReplicatedResources::isReplicated).isPresent()) {
            return SharingStrategy.TIME_SLICING;
        }
        return SharingStrategy.NONE;
    }

    /** The replicas of the active strategy, empty when nothing is shared. */
    public Optional<ReplicatedResources> active() {
        return switch (strategy()) {
            case MPS -> mps;
            case TIME_SLICING -> timeSlicing;
            case NONE -> Optional.empty();
        };
    }
}
