package dev.kgpu.validator.adapters;

import dev.kgpu.validator.core.PciDevices;
import dev.kgpu.validator.core.PciGpus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The PCI functions under {@code <host root>/sys/bus/pci/devices}, by their {@code vendor} file
 * ({@code 0x10de}): what {@code lspci} lists, one line a function, without needing {@code lspci} in the image;
 * and NVIDIA's GPUs and vGPU devices there as go-nvlib reads them (class, {@code physfn}, {@code driver} link,
 * {@code sys/bus/mdev/devices}).
 */
public final class SysfsPciDevices implements PciDevices, PciGpus {

    /** PCI classes go-nvlib counts as GPUs: VGA controller and 3D controller. */
    private static final int VGA_CONTROLLER = 0x030000;
    private static final int CONTROLLER_3D = 0x030200;

    private final Path devices;
    private final Path mediatedDevices;

    public SysfsPciDevices(Path hostRoot) {
        Objects.requireNonNull(hostRoot, "hostRoot");
        this.devices = hostRoot.resolve("sys/bus/pci/devices");
        this.mediatedDevices = hostRoot.resolve("sys/bus/mdev/devices");
    }

    @Override
    public int count(int vendor) {
        int count = 0;
        for (Path function : list(devices)) {
            if (number(function, "vendor") == vendor) {
                count++;
            }
        }
        return count;
    }

    @Override
    public List<Gpu> gpus() {
        List<Gpu> gpus = new ArrayList<>();
        for (Path function : list(devices)) {
            int pciClass = number(function, "class");
            if (number(function, "vendor") == NVIDIA && (pciClass == VGA_CONTROLLER || pciClass == CONTROLLER_3D)
                    && !Files.exists(function.resolve("physfn"))) {
                gpus.add(new Gpu(function.getFileName().toString(), driver(function)));
            }
        }
        gpus.sort(Comparator.comparing(Gpu::address));
        return gpus;
    }

    @Override
    public int vgpuDevices() {
        int count = 0;
        for (Path device : list(mediatedDevices)) {
            // sys/bus/mdev/devices/<uuid> links to .../devices/pci0000:00/.../<parent bus ID>/<uuid>
            Path parent = realPath(device).map(Path::getParent).orElse(null);
            if (parent != null && number(devices.resolve(parent.getFileName().toString()), "vendor") == NVIDIA) {
                count++;
            }
        }
        return count;
    }

    private static List<Path> list(Path directory) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            stream.forEach(entries::add);
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + directory + ": " + e.getMessage(), e);
        }
        return entries;
    }

    /** A hexadecimal sysfs attribute ({@code 0x10de}), or -1 when unreadable (the function went away meanwhile). */
    private static int number(Path function, String attribute) {
        try {
            return Integer.decode(Files.readString(function.resolve(attribute)).strip());
        } catch (NoSuchFileException | NumberFormatException e) {
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + function.resolve(attribute) + ": " + e.getMessage(), e);
        }
    }

    /** The driver a function is bound to ({@code driver} links to {@code .../drivers/vfio-pci}); empty when none. */
    private static String driver(Path function) {
        Path link = function.resolve("driver");
        try {
            return Files.readSymbolicLink(link).getFileName().toString();
        } catch (NoSuchFileException | NotLinkException e) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the link " + link + ": " + e.getMessage(), e);
        }
    }

    /** Where a device really is, links followed; empty when it went away meanwhile. */
    private static Optional<Path> realPath(Path device) {
        try {
            return Optional.of(device.toRealPath());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("could not resolve " + device + ": " + e.getMessage(), e);
        }
    }
}
