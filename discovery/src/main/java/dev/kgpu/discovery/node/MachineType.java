package dev.kgpu.discovery.node;

import dev.kgpu.config.BoundedFile;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.discovery.labels.NodeSnapshot;

import java.nio.file.Path;
import java.util.Optional;

/** Reads the machine type from GFD's machine-type file ({@code /sys/class/dmi/id/product_name}). */
public final class MachineType {

    /** Far more than a DMI product name (at most 255 bytes) or any machine-type file holds. */
    static final long MAX_BYTES = 64 << 10;

    /**
     * The machine type, or why the file gave none.
     *
     * @param name    the file's content, trimmed; {@code unknown} when no file is configured or it cannot be read
     * @param problem why the file could not be read, one line naming {@code GFD_MACHINE_TYPE_FILE} and the path
     */
    public record Reading(String name, Optional<String> problem) {
    }

    private MachineType() {
    }

    /**
     * Reads the file, at most {@value #MAX_BYTES} bytes of it whatever size it reports ({@code /dev/zero}
     * ends there); {@code unknown} when no file is configured or it cannot be read, as GFD labels it.
     */
    public static Reading read(Optional<Path> file) {
        if (file.isEmpty()) {
            return new Reading(NodeSnapshot.UNKNOWN_MACHINE, Optional.empty());
        }
        try {
            return new Reading(BoundedFile.readText(file.get(), MAX_BYTES, "GFD_MACHINE_TYPE_FILE").strip(),
                    Optional.empty());
        } catch (InvalidConfigException e) {
            return new Reading(NodeSnapshot.UNKNOWN_MACHINE, Optional.of(e.failures().getFirst().message()));
        }
    }
}
