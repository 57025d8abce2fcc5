package dev.kgpu.cdi;

import dev.kgpu.config.BoundedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The driver's MIG capability table, {@code /proc/driver/nvidia-caps/mig-minors}: lines such as
 * {@code gpu0/gi7/access 66} and {@code gpu0/gi7/ci0/access 67} name the {@code /dev/nvidia-caps/nvidia-cap<N>}
 * that grants access to a GPU instance and to a compute instance in it (plus {@code config} and
 * {@code monitor}). Read by the device plugin (device specs, CDI specs) and the CDI generator. Immutable.
 */
public final class MigMinors {

    /** Where the driver publishes the table, relative to the root of {@code /proc}'s file system. */
    public static final String FILE = "proc/driver/nvidia-caps/mig-minors";
    /** A table for 64 GPUs of 8 instances each holds about 40 KiB; a larger file is not the driver's. */
    static final long MAX_BYTES = 4 << 20;

    private final Map<String, Integer> minors;

    private MigMinors(Map<String, Integer> minors) {
        this.minors = Map.copyOf(minors);
    }

    public static MigMinors none() {
        return new MigMinors(Map.of());
    }

    /**
     * Reads {@code file}; a missing file (no MIG-capable driver) has no minors.
     *
     * @throws CdiException naming the file and the line when a line is not {@code <capability> <minor>}, or when
     *                      the file cannot be read
     */
    public static MigMinors read(Path file) {
        List<String> lines;
        try {
            lines = new String(BoundedFile.readBytes(file, MAX_BYTES), StandardCharsets.UTF_8).lines().toList();
        } catch (NoSuchFileException e) {
            return none();
        } catch (IOException e) {
            throw new CdiException("could not read " + file + ": " + e.getMessage(), e);
        }
        Map<String, Integer> minors = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\\s+");
            if (parts.length != 2 || !parts[1].matches("\\d{1,9}")) {
                throw new CdiException(file + " line " + (i + 1) + " was '" + line + "' but it must be '<capability> <minor>'");
            }
            minors.put(parts[0], Integer.parseInt(parts[1]));
        }
        return new MigMinors(minors);
    }

    /** The minor of a GPU instance's access capability ({@code gpu<minor>/gi<id>/access}). */
    public Optional<Integer> gpuInstance(int gpuMinor, int gpuInstanceId) {
        return Optional.ofNullable(minors.get(gpuInstanceKey(gpuMinor, gpuInstanceId)));
    }

    /** The minor of a compute instance's access capability ({@code gpu<minor>/gi<id>/ci<id>/access}). */
    public Optional<Integer> computeInstance(int gpuMinor, int gpuInstanceId, int computeInstanceId) {
        return Optional.ofNullable(minors.get(computeInstanceKey(gpuMinor, gpuInstanceId, computeInstanceId)));
    }

    static String gpuInstanceKey(int gpuMinor, int gpuInstanceId) {
        return "gpu" + gpuMinor + "/gi" + gpuInstanceId + "/access";
    }

    static String computeInstanceKey(int gpuMinor, int gpuInstanceId, int computeInstanceId) {
        return "gpu" + gpuMinor + "/gi" + gpuInstanceId + "/ci" + computeInstanceId + "/access";
    }
}
