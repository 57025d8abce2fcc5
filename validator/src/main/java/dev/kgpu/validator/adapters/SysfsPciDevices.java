package dev.kgpu.validator.adapters;

import dev.kgpu.validator.core.PciDevices;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The PCI functions under {@code <host root>/sys/bus/pci/devices}, by their {@code vendor} file
 * ({@code 0x10de}): what {@code lspci} lists, one line a function, without needing {@code lspci} in the image.
 */
public final class SysfsPciDevices implements PciDevices {

    private final Path devices;

    public SysfsPciDevices(Path hostRoot) {
        this.devices = Objects.requireNonNull(hostRoot, "hostRoot").resolve("sys/bus/pci/devices");
    }

    @Override
    public int count(int vendor) {
        int count = 0;
        try (DirectoryStream<Path> functions = Files.newDirectoryStream(devices)) {
            for (Path function : functions) {
                if (vendor(function) == vendor) {
                    count++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + devices + ": " + e.getMessage(), e);
        }
        return count;
    }

    /** The function's vendor ID, or -1 when its vendor file is unreadable (the function went away meanwhile). */
    private static int vendor(Path function) throws IOException {
        try {
            String text = Files.readString(function.resolve("vendor")).strip();
            return Integer.decode(text);
        } catch (NoSuchFileException | NumberFormatException e) {
            return -1;
        }
    }
}
