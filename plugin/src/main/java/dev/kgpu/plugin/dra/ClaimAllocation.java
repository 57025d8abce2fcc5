package dev.kgpu.plugin.dra;

import java.util.List;

/** What the API server says about a claim the kubelet asked to prepare. */
public sealed interface ClaimAllocation {

    /**
     * Allocated, with every device the scheduler picked (of every driver) and the allocation's configs (the class's,
     * then the claim's; of every driver).
     */
    record Allocated(List<AllocatedDevice> devices, List<dev.kgpu.plugin.dra.config.ClaimConfig> configs) implements ClaimAllocation {
        public Allocated {
            devices = List.copyOf(devices);
            configs = List.copyOf(configs);
        }

        /** Allocated without configs. */
        public Allocated(List<AllocatedDevice> devices) {
            this(devices, List.of());
        }
    }

    /** There is no such claim (deleted meanwhile). */
    record NotFound() implements ClaimAllocation {
    }

    /** The claim exists but has no {@code status.allocation}. */
    record NotAllocated() implements ClaimAllocation {
    }

    /** A claim of that name exists, with another UID: the one the kubelet means was deleted and replaced. */
    record Replaced(String currentUid) implements ClaimAllocation {
    }

    /** The API server could not be asked, or refused ({@code reason} in one line). */
    record Unreadable(String reason) implements ClaimAllocation {
    }
}
