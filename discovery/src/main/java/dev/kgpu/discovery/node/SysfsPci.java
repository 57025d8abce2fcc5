package dev.kgpu.discovery.node;

import dev.kgpu.discovery.labels.VgpuScan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * Reads what GFD reads from sysfs: a GPU's PCI class (for {@code gpu.mode}) and the vGPU vendor
 * capability in the PCI configuration space of every NVIDIA device (for {@code vgpu.*}).
 *
 * <p>The root is configurable ({@code /sys} on a node) so tests and the simulated node can lay out a
 * fake tree.
 */
public final class SysfsPci {

    static final String NVIDIA_VENDOR = "0x10de";
    private static final int STATUS_BYTE = 0x06;
    private static final int STATUS_CAPABILITY_LIST = 0x10;
    private static final int CAPABILITY_LIST = 0x34;
    private static final int VENDOR_SPECIFIC_CAPABILITY = 0x09;
    private static final int VGPU_RECORD_START = 5;
    private static final int HOST_DRIVER_VERSION_LENGTH = 10;
    private static final int HOST_DRIVER_BRANCH_LENGTH = 10;

    private final Path devices;

    /** @param sysfsRoot the sysfs mount, {@code /sys} on a node */
    public SysfsPci(Path sysfsRoot) {
        this.devices = Objects.requireNonNull(sysfsRoot, "sysfsRoot").resolve("bus/pci/devices");
    }

    /**
     * The class code of the PCI function at {@code busId} ({@code 0000:3b:00.0}), e.g. {@code 0x030200},
     * or empty when it cannot be read.
     */
    public OptionalInt pciClass(String busId) {
        try {
            String text = Files.readString(devices.resolve(busId).resolve("class"), StandardCharsets.US_ASCII).trim();
            return OptionalInt.of(Integer.parseUnsignedInt(text.startsWith("0x") ? text.substring(2) : text, 16));
        } catch (IOException | NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * Scans every NVIDIA PCI function for the vGPU signature ({@code VF}) in its vendor-specific
     * capability and reads the host driver record, as GFD's {@code internal/vgpu} does.
     */
    public VgpuScan scanVgpu() {
        List<Path> functions = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(devices)) {
            stream.forEach(functions::add);
        } catch (IOException e) {
            return new VgpuScan.Unreadable("cannot list " + devices + ": " + e);
        }
        List<VgpuScan.HostDriver> hosts = new ArrayList<>();
        for (Path function : new TreeSet<>(functions)) {
            try {
                if (!NVIDIA_VENDOR.equals(Files.readString(function.resolve("vendor"), StandardCharsets.US_ASCII).trim())) {
                    continue;
                }
                byte[] config = Files.readAllBytes(function.resolve("config"));
                if (config.length < 256) {
                    return new VgpuScan.Unreadable("only " + config.length + " bytes of the PCI configuration space of "
                            + function.getFileName() + " are readable; vGPU detection needs a privileged container");
                }
                byte[] capability = vendorCapability(config);
                if (capability == null || !isVgpu(capability)) {
                    continue;
                }
                VgpuScan.HostDriver host = hostDriver(capability);
                if (host == null) {
                    return new VgpuScan.Unreadable("the vGPU capability of " + function.getFileName() + " has no host driver record");
                }
                hosts.add(host);
            } catch (IOException e) {
                return new VgpuScan.Unreadable("cannot read PCI function " + function.getFileName() + ": " + e);
            }
        }
        return new VgpuScan.Scanned(hosts);
    }

    /** The vendor-specific capability (id 9) from the capability list, or null. */
    static byte[] vendorCapability(byte[] config) {
        if ((config[STATUS_BYTE] & STATUS_CAPABILITY_LIST) == 0) {
            return null;
        }
        boolean[] visited = new boolean[256];
        int position = config[CAPABILITY_LIST] & 0xFF;
        while (position != 0 && position + 2 < config.length) {
            int id = config[position] & 0xFF;
            int next = config[position + 1] & 0xFF;
            int length = config[position + 2] & 0xFF;
            if (visited[position] || id == 0xFF) {
                return null;
            }
            if (id == VENDOR_SPECIFIC_CAPABILITY) {
                int end = Math.min(position + length, config.length);
                byte[] capability = new byte[end - position];
                System.arraycopy(config, position, capability, 0, capability.length);
                return capability;
            }
            visited[position] = true;
            position = next;
        }
        return null;
    }

    static boolean isVgpu(byte[] capability) {
        return capability.length >= 5 && capability[3] == 0x56 && capability[4] == 0x46;
    }

    /** Walks the vGPU records to the host-driver record (id 0): 10 bytes of version, then 10 of branch. */
    static VgpuScan.HostDriver hostDriver(byte[] capability) {
        int position = VGPU_RECORD_START;
        if (position >= capability.length) {
            return null;
        }
        int record = capability[position] & 0xFF;
        while (record != 0 && position < capability.length) {
            int length = position + 1 < capability.length ? capability[position + 1] & 0xFF : 0;
            if (length == 0) {
                return null;
            }
            position += length;
            record = position < capability.length ? capability[position] & 0xFF : 0xFF;
        }
        int end = position + 2 + HOST_DRIVER_VERSION_LENGTH + HOST_DRIVER_BRANCH_LENGTH;
        if (record != 0 || end > capability.length) {
            return null;
        }
        String version = text(capability, position + 2, HOST_DRIVER_VERSION_LENGTH);
        String branch = text(capability, position + 2 + HOST_DRIVER_VERSION_LENGTH, HOST_DRIVER_BRANCH_LENGTH);
        return new VgpuScan.HostDriver(version, branch);
    }

    private static String text(byte[] bytes, int offset, int length) {
        String raw = new String(bytes, offset, length, StandardCharsets.US_ASCII);
        int start = 0;
        int end = raw.length();
        while (start < end && raw.charAt(start) == 0) {
            start++;
        }
        while (end > start && raw.charAt(end - 1) == 0) {
            end--;
        }
        return raw.substring(start, end);
    }
}
