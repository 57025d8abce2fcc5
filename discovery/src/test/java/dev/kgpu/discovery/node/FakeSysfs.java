package dev.kgpu.discovery.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A sysfs tree with just the PCI files discovery reads. */
public final class FakeSysfs {

    private final Path root;

    public FakeSysfs(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    /** Adds PCI function {@code busId} with {@code vendor}, {@code class} and a configuration space. */
    public FakeSysfs function(String busId, String vendor, int pciClass, byte[] config) {
        try {
            Path function = Files.createDirectories(root.resolve("bus/pci/devices").resolve(busId));
            Files.writeString(function.resolve("vendor"), vendor + "\n");
            Files.writeString(function.resolve("class"), String.format("0x%06x%n", pciClass));
            Files.write(function.resolve("config"), config);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An NVIDIA GPU without capabilities in its (full, 256-byte) configuration space. */
    public FakeSysfs gpu(String busId, int pciClass) {
        return function(busId, SysfsPci.NVIDIA_VENDOR, pciClass, new byte[256]);
    }
}
