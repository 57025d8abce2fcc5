package dev.kgpu.plugin.nvml;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.MigMinors;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The driver's MIG capability device minors, from {@code /proc/driver/nvidia-caps/mig-minors}: lines
 * {@code gpu<minor>/gi<id>/access <N>} and {@code gpu<minor>/gi<id>/ci<id>/access <N>} name
 * {@code /dev/nvidia-caps/nvidia-cap<N>}, which a container needs (with {@code passDeviceSpecs}) to use
 * a MIG device. Without the file (no MIG-capable driver, tests) no capability nodes are passed.
 * Immutable.
 */
public final class MigCapabilities {

    public static final Path DEFAULT_FILE = Path.of("/").resolve(MigMinors.FILE);

    private final MigMinors minors;

    private MigCapabilities(MigMinors minors) {
        this.minors = minors;
    }

    public static MigCapabilities none() {
        return new MigCapabilities(MigMinors.none());
    }

    /** Reads {@code file}; a missing file means none. A malformed line is an error naming it. */
    public static MigCapabilities read(Path file) {
        try {
            return new MigCapabilities(MigMinors.read(file));
        } catch (CdiException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The GPU-instance and compute-instance access minors of a MIG device, those the file lists. */
    public List<Integer> minors(int gpuMinor, int gpuInstanceId, int computeInstanceId) {
        return Stream.of(minors.gpuInstance(gpuMinor, gpuInstanceId),
                minors.computeInstance(gpuMinor, gpuInstanceId, computeInstanceId)).flatMap(Optional::stream).toList();
    }
}
