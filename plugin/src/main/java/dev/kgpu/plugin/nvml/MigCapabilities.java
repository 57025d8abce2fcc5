package dev.kgpu.plugin.nvml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The driver's MIG capability device minors, from {@code /proc/driver/nvidia-caps/mig-minors}: lines
 * {@code gpu<minor>/gi<id>/access <N>} and {@code gpu<minor>/gi<id>/ci<id>/access <N>} name
 * {@code /dev/nvidia-caps/nvidia-cap<N>}, which a container needs (with {@code passDeviceSpecs}) to use
 * a MIG device. Without the file (no MIG-capable driver, tests) no capability nodes are passed.
 * Immutable.
 */
public final class MigCapabilities {

    public static final Path DEFAULT_FILE = Path.of("/proc/driver/nvidia-caps/mig-minors");

    private final Map<String, Integer> minors;

    private MigCapabilities(Map<String, Integer> minors) {
        this.minors = Map.copyOf(minors);
    }

    public static MigCapabilities none() {
        return new MigCapabilities(Map.of());
    }

    /** Reads {@code file}; a missing file means none. A malformed line is an error naming it. */
    public static MigCapabilities read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            return none();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + file, e);
        }
        Map<String, Integer> minors = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\\s+");
            try {
                if (parts.length != 2) {
                    throw new NumberFormatException();
                }
                minors.put(parts[0], Integer.parseInt(parts[1]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + " was '" + line
                        + "' but it must be '<capability> <minor>'");
            }
        }
        return new MigCapabilities(minors);
    }

    /** The GPU-instance and compute-instance access minors of a MIG device, those the file lists. */
    public List<Integer> minors(int gpuMinor, int gpuInstanceId, int computeInstanceId) {
        String gi = "gpu" + gpuMinor + "/gi" + gpuInstanceId;
        return java.util.stream.Stream.of(gi + "/access", gi + "/ci" + computeInstanceId + "/access")
                .map(minors::get).filter(java.util.Objects::nonNull).toList();
    }
}
