package dev.kgpu.discovery.node;

import dev.kgpu.discovery.labels.NodeSnapshot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Reads the machine type from GFD's machine-type file ({@code /sys/class/dmi/id/product_name}). */
public final class MachineType {

    private MachineType() {
    }

    /**
     * The file's content, trimmed; {@code unknown} when no file is configured or it cannot be read
     * (GFD logs a warning and labels {@code unknown} too).
     */
    public static String read(Optional<Path> file) {
        if (file.isEmpty()) {
            return NodeSnapshot.UNKNOWN_MACHINE;
        }
        try {
            return Files.readString(file.get(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return NodeSnapshot.UNKNOWN_MACHINE;
        }
    }
}
