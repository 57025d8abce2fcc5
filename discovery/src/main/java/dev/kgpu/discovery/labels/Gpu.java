package dev.kgpu.discovery.labels;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One physical GPU as the labels see it.
 *
 * @param index          NVML index
 * @param name           NVML's product name, e.g. {@code NVIDIA A100-SXM4-80GB}
 * @param memoryMiB      total framebuffer memory in MiB, 0 when NVML could not say (then no memory label)
 * @param computeMajor   CUDA compute capability major, 0 when unknown (then no family/compute labels)
 * @param computeMinor   CUDA compute capability minor
 * @param migCapable     whether the GPU supports MIG at all
 * @param migEnabled     whether MIG mode is on now
 * @param migDevices     the MIG devices configured now (empty unless MIG is on)
 * @param pciClass       the PCI class code from sysfs ({@code 0x030200} 3D controller, {@code 0x030000} VGA),
 *                       empty when it could not be read
 * @param fabric         NVLink fabric membership when the GPU is attached to a fabric
 */
public record Gpu(
        int index,
        String name,
        long memoryMiB,
        int computeMajor,
        int computeMinor,
        boolean migCapable,
        boolean migEnabled,
        List<MigInstance> migDevices,
        OptionalInt pciClass,
        Optional<Fabric> fabric) {

    public Gpu {
        Objects.requireNonNull(name, "name");
        migDevices = List.copyOf(migDevices);
        Objects.requireNonNull(pciClass, "pciClass");
        Objects.requireNonNull(fabric, "fabric");
        if (memoryMiB < 0) {
            throw new IllegalArgumentException("memoryMiB was '" + memoryMiB + "' but it must not be negative");
        }
        if (migEnabled && !migCapable) {
            throw new IllegalArgumentException("migEnabled was 'true' but GPU " + index + " is not MIG capable");
        }
    }

    /**
     * Fabric membership of a fabric-attached GPU.
     *
     * @param clusterUuid the fabric cluster's UUID
     * @param cliqueId    the clique within the cluster
     */
    public record Fabric(String clusterUuid, long cliqueId) {
        public Fabric {
            Objects.requireNonNull(clusterUuid, "clusterUuid");
        }
    }
}
