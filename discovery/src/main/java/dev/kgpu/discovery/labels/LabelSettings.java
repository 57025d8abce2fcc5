package dev.kgpu.discovery.labels;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.SharingStrategy;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The part of the configuration that changes labels.
 *
 * @param migStrategy how MIG devices are exposed ({@code flags.migStrategy})
 * @param noTimestamp whether {@code gfd.timestamp} is left out ({@code flags.gfd.noTimestamp})
 * @param sharing     the replicas the device plugin advertises ({@code sharing})
 */
public record LabelSettings(MigStrategy migStrategy, boolean noTimestamp, Sharing sharing) {

    public LabelSettings {
        Objects.requireNonNull(migStrategy, "migStrategy");
        Objects.requireNonNull(sharing, "sharing");
    }

    /**
     * The sharing section as GFD uses it.
     *
     * @param strategy the active strategy: {@code mps} when the MPS section replicates anything, else
     *                 {@code time-slicing} when the time-slicing section does, else {@code none}
     * @param replicas replicas per fully qualified resource name ({@code nvidia.com/gpu},
     *                 {@code nvidia.com/mig-1g.10gb}) from the section GFD reads: the MPS section when the
     *                 file has one, else the time-slicing section
     * @param renamed  the resources of that section advertised under another name
     *                 ({@code nvidia.com/gpu.shared} by {@code renameByDefault}): their product label gets no
     *                 {@code -SHARED} suffix
     */
    public record Sharing(SharingStrategy strategy, Map<String, Integer> replicas, Set<String> renamed) {

        public static final Sharing NONE = new Sharing(SharingStrategy.NONE, Map.of(), Set.of());

        public Sharing {
            Objects.requireNonNull(strategy, "strategy");
            replicas = Map.copyOf(replicas);
            renamed = Set.copyOf(renamed);
            replicas.forEach((name, count) -> {
                if (count < 1) {
                    throw new IllegalArgumentException("sharing replicas of " + name + " was '" + count + "' but it must be at least 1");
                }
            });
        }

        /** A section whose {@code renameByDefault} renames all of its resources, or none of them. */
        public Sharing(SharingStrategy strategy, Map<String, Integer> replicas, boolean renameByDefault) {
            this(strategy, replicas, renameByDefault ? replicas.keySet() : Set.of());
        }

        /** Replicas configured for {@code resourceName}, if any. */
        public Optional<Integer> replicasOf(String resourceName) {
            return Optional.ofNullable(replicas.get(resourceName));
        }

        /** Whether {@code resourceName} is advertised under another name. */
        public boolean isRenamed(String resourceName) {
            return renamed.contains(resourceName);
        }
    }
}
