package dev.kgpu.plugin.devices;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A MIG device: one compute instance in one GPU instance of a MIG-enabled GPU.
 *
 * @param uuid              {@code MIG-...}
 * @param parentIndex       NVML index of the parent GPU
 * @param parentUuid        the parent's {@code GPU-...}
 * @param parentMinor       the parent's {@code /dev/nvidiaN} minor
 * @param migIndex          index among the parent's MIG devices
 * @param gpuInstanceId     GPU instance id, as XID events name it
 * @param computeInstanceId compute instance id, as XID events name it
 * @param profile           NVIDIA's canonical profile name, e.g. {@code 1g.10gb} or {@code 1c.2g.20gb}
 * @param numaNode          the parent GPU's NUMA node, when known
 * @param capabilityMinors  minors of {@code /dev/nvidia-caps/nvidia-cap<N>} that grant access to this device
 *                          (GPU-instance and compute-instance access), empty when the driver does not publish them
 * @param details           its placement and size, which dynamic resource allocation publishes
 */
public record MigInstance(String uuid, int parentIndex, String parentUuid, int parentMinor, int migIndex,
                          int gpuInstanceId, int computeInstanceId, String profile, OptionalInt numaNode,
                          List<Integer> capabilityMinors, MigDetails details) implements PhysicalDevice {

    public MigInstance {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(parentUuid, "parentUuid");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(numaNode, "numaNode");
        capabilityMinors = List.copyOf(capabilityMinors);
        Objects.requireNonNull(details, "details");
    }

    /** A MIG device whose placement and size are not known ({@link MigDetails#UNKNOWN}), as the device plugin alone needs it. */
    public MigInstance(String uuid, int parentIndex, String parentUuid, int parentMinor, int migIndex,
                       int gpuInstanceId, int computeInstanceId, String profile, OptionalInt numaNode,
                       List<Integer> capabilityMinors) {
        this(uuid, parentIndex, parentUuid, parentMinor, migIndex, gpuInstanceId, computeInstanceId, profile, numaNode,
                capabilityMinors, MigDetails.UNKNOWN);
    }

    /**
     * Whether its compute instance spans its whole GPU instance ({@code 1g.10gb}, {@code 1g.10gb+me}: yes;
     * {@code 1c.2g.20gb}: no). NVIDIA's DRA driver cannot enumerate a node with one that does not (its profile list
     * holds whole instances only); kgpu's names it apart. NVIDIA's device plugin (strategy mixed) counts them under
     * their GPU instance's resource up to v0.19, as kgpu's planner does, and refuses the node from v0.20.
     */
    public boolean spansGpuInstance() {
        return !profile.matches("^[0-9]+c\\..*");
    }

    @Override
    public String indexId() {
        return parentIndex + ":" + migIndex;
    }

    @Override
    public String gpuUuid() {
        return parentUuid;
    }

    @Override
    public int gpuIndex() {
        return parentIndex;
    }

    @Override
    public List<String> deviceNodes() {
        List<String> caps = capabilityMinors.stream().map(m -> "/dev/nvidia-caps/nvidia-cap" + m).toList();
        return java.util.stream.Stream.concat(java.util.stream.Stream.of("/dev/nvidia" + parentMinor), caps.stream()).toList();
    }
}
