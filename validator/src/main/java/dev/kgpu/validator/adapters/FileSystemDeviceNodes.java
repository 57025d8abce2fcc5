package dev.kgpu.validator.adapters;

import dev.kgpu.validator.core.DeviceNodes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/** Device nodes on the local file system, told apart by their {@code st_mode} file type bits. */
public final class FileSystemDeviceNodes implements DeviceNodes {

    private static final int S_IFMT = 0170000;
    private static final int S_IFCHR = 0020000;

    private final Path root;

    public FileSystemDeviceNodes(Path root) {
        this.root = root;
    }

    @Override
    public String root() {
        return root.toString();
    }

    @Override
    public Kind kind(String relativePath) {
        Path node = root.resolve(relativePath);
        if (!Files.exists(node)) {
            return Kind.MISSING;
        }
        try {
            Object mode = Files.getAttribute(node, "unix:mode");
            if (mode instanceof Integer bits && (bits & S_IFMT) == S_IFCHR) {
                return Kind.CHARACTER_DEVICE;
            }
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
            // no "unix" attribute view: fall back to the basic view below
        }
        try {
            BasicFileAttributes attributes = Files.readAttributes(node, BasicFileAttributes.class);
            return attributes.isRegularFile() ? Kind.REGULAR_FILE : Kind.OTHER;
        } catch (IOException e) {
            return Kind.MISSING;
        }
    }
}
