package dev.kgpu.nvml.mock;

import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.Nvml;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A GPU node's driver files, laid out under one root as an NVIDIA driver installs them on the host, so that
 * whatever reads a driver root (kgpu's agents, its CDI generator, NVIDIA's own device plugin and GPU Feature
 * Discovery, {@code nvidia-ctk cdi generate}) finds what it looks for without a GPU:
 *
 * <pre>
 * usr/lib/x86_64-linux-gnu/libnvidia-ml.so.&lt;version&gt;    the mock NVML (a copy), with its SONAME link libnvidia-ml.so.1
 * usr/lib/x86_64-linux-gnu/lib*.so.&lt;version&gt;            the driver's other user-space libraries (stub files), SONAME links
 * usr/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.*    as the driver installs it
 * lib/firmware/nvidia/&lt;version&gt;/gsp_*.bin               GSP firmware (stub files)
 * usr/bin/nvidia-smi, nvidia-debugdump, ...               the driver's binaries (stub scripts that say so and fail)
 * dev/nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset, nvidia&lt;minor&gt;   device nodes (regular files)
 * dev/nvidia-caps/nvidia-cap&lt;N&gt;                          MIG capability nodes: config, monitor, each GPU/compute instance
 * proc/driver/nvidia/version                              the kernel module's version line
 * proc/driver/nvidia/capabilities/...                     mig/config, mig/monitor, gpu&lt;minor&gt;/mig/gi&lt;G&gt;[/ci&lt;C&gt;]/access
 * proc/driver/nvidia-caps/mig-minors                      the capability-to-minor table, as the driver prints it
 * proc/sys/kernel/random/boot_id                          the kernel's boot id: a random UUID, written once per root
 *                                                         (a root laid out anew is a node booted anew)
 * sys/bus/pci/devices/&lt;bus id&gt;/                          vendor, device, subsystem_*, class, numa_node, config, resource, driver
 * </pre>
 *
 * <p>Device nodes are regular files (making character devices needs root), so readers that {@code lstat} them get
 * no major/minor, as with a device node they may not read. Libraries other than NVML are stub files: their names
 * and links are what matters to a reader of the driver root, nothing loads them.
 *
 * <p>Stateless; {@link #write} is not atomic (the caller owns the root).
 */
public final class SimulatedDriverRoot {

    /** The kernel's boot id, relative to the root. */
    public static final String BOOT_ID = "proc/sys/kernel/random/boot_id";
    /** Where the driver's libraries go, relative to the root (Debian's and Ubuntu's multiarch directory). */
    public static final String LIBRARY_DIR = "usr/lib/x86_64-linux-gnu";
    /** The control and UVM device nodes every driver creates. */
    public static final List<String> CONTROL_DEVICE_NODES = List.of("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
            "nvidia-modeset");
    /** The driver's binaries, as {@code nvidia-ctk cdi generate} looks for them. */
    public static final List<String> BINARIES = List.of("nvidia-smi", "nvidia-debugdump", "nvidia-persistenced",
            "nvidia-cuda-mps-control", "nvidia-cuda-mps-server");
    /** GSP firmware files of an R550 driver. */
    public static final List<String> FIRMWARE = List.of("gsp_ga10x.bin", "gsp_tu10x.bin");

    /** Library (without {@code .so.<version>}) → its SONAME link, or empty for libraries that have none. */
    private static final List<Library> LIBRARIES = List.of(
            new Library("libcuda", Optional.of("libcuda.so.1"), Optional.of("libcuda.so")),
            new Library("libcudadebugger", Optional.of("libcudadebugger.so.1"), Optional.empty()),
            new Library("libnvidia-allocator", Optional.of("libnvidia-allocator.so.1"), Optional.empty()),
            new Library("libnvidia-cfg", Optional.of("libnvidia-cfg.so.1"), Optional.empty()),
            new Library("libnvidia-gpucomp", Optional.empty(), Optional.empty()),
            new Library("libnvidia-nvvm", Optional.of("libnvidia-nvvm.so.4"), Optional.empty()),
            new Library("libnvidia-opencl", Optional.of("libnvidia-opencl.so.1"), Optional.empty()),
            new Library("libnvidia-ptxjitcompiler", Optional.of("libnvidia-ptxjitcompiler.so.1"), Optional.empty()),
            new Library("vdpau/libvdpau_nvidia", Optional.of("vdpau/libvdpau_nvidia.so.1"), Optional.empty()));

    /** MIG capability minors: config and monitor, then 9 per GPU instance (its access and 8 compute instances). */
    private static final int MIG_CONFIG_MINOR = 1;
    private static final int MIG_MONITOR_MINOR = 2;
    private static final int GPU_INSTANCES_PER_GPU = 15;
    private static final int COMPUTE_INSTANCES_PER_GPU_INSTANCE = 8;
    private static final int MINORS_PER_GPU_INSTANCE = 1 + COMPUTE_INSTANCES_PER_GPU_INSTANCE;
    private static final int MINORS_PER_GPU = GPU_INSTANCES_PER_GPU * MINORS_PER_GPU_INSTANCE;

    private static final int PCI_CLASS_VGA = 0x030000;
    private static final int PCI_CLASS_3D = 0x030200;

    private SimulatedDriverRoot() {
    }

    /**
     * One GPU as the driver root shows it.
     *
     * @param minor       {@code /dev/nvidia<minor>}
     * @param sysfsBusId  {@code 0000:07:00.0}
     * @param pciDeviceId NVML's combined id, {@code 0x20B210DE}
     * @param numaNode    the NUMA node sysfs reports; empty for {@code -1}
     * @param vga         a VGA controller (GeForce boards) rather than a 3D controller
     * @param migDevices  the GPU's MIG devices (empty with MIG off)
     */
    public record Gpu(int minor, String sysfsBusId, int pciDeviceId, int pciSubsystemId, OptionalInt numaNode,
                      boolean vga, List<MigInstance> migDevices) {
        public Gpu {
            Objects.requireNonNull(sysfsBusId, "sysfsBusId");
            Objects.requireNonNull(numaNode, "numaNode");
            migDevices = List.copyOf(migDevices);
        }
    }

    /** A MIG device: the GPU instance and the compute instance in it. */
    public record MigInstance(int gpuInstanceId, int computeInstanceId) {
    }

    private record Library(String stem, Optional<String> soname, Optional<String> developmentLink) {
    }

    /** The GPUs NVML reports, with what the driver root needs of each. */
    public static List<Gpu> gpusOf(Nvml nvml) {
        List<Gpu> gpus = new ArrayList<>();
        for (GpuDevice device : nvml.devices()) {
            List<MigInstance> migs = new ArrayList<>();
            for (MigDevice mig : device.migDevices()) {
                migs.add(new MigInstance(mig.gpuInstanceId(), mig.computeInstanceId()));
            }
            boolean vga = switch (device.brand()) {
                case GEFORCE, GEFORCE_RTX, TITAN, TITAN_RTX -> true;
                default -> false;
            };
            gpus.add(new Gpu(device.minorNumber(), device.pci().sysfsBusId(), device.pci().pciDeviceId(),
                    device.pci().pciSubSystemId(), device.numaNode(), vga, migs));
        }
        return gpus;
    }

    /** The minor of {@code /dev/nvidia-caps/nvidia-cap<N>} for a GPU instance's access capability. */
    public static int gpuInstanceCapMinor(int gpuMinor, int gpuInstanceId) {
        return MIG_MONITOR_MINOR + 1 + gpuMinor * MINORS_PER_GPU + gpuInstanceId * MINORS_PER_GPU_INSTANCE;
    }

    /** The minor of {@code /dev/nvidia-caps/nvidia-cap<N>} for a compute instance's access capability. */
    public static int computeInstanceCapMinor(int gpuMinor, int gpuInstanceId, int computeInstanceId) {
        return gpuInstanceCapMinor(gpuMinor, gpuInstanceId) + 1 + computeInstanceId;
    }

    /**
     * Lays out the driver files under {@code root} (created if missing; existing files are replaced).
     *
     * @param nvmlLibrary the mock {@code libnvidia-ml.so.1} to install as the driver's NVML; empty: a stub file
     */
    public static void write(Path root, String driverVersion, List<Gpu> gpus, Optional<Path> nvmlLibrary)
            throws IOException {
        writeLibraries(root, driverVersion, nvmlLibrary);
        writeFirmware(root, driverVersion);
        writeBinaries(root, driverVersion);
        writeDeviceNodes(root, gpus);
        writeProc(root, driverVersion, gpus);
        writeBootId(root);
        writeSysfs(root, gpus);
    }

    /** {@code proc/sys/kernel/random/boot_id}, unless the root has one: writing the driver again is no reboot. */
    private static void writeBootId(Path root) throws IOException {
        Path file = root.resolve(BOOT_ID);
        if (!Files.exists(file)) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, java.util.UUID.randomUUID() + "\n");
        }
    }

    private static void writeLibraries(Path root, String version, Optional<Path> nvmlLibrary) throws IOException {
        Path dir = Files.createDirectories(root.resolve(LIBRARY_DIR));
        Path nvml = dir.resolve("libnvidia-ml.so." + version);
        Files.deleteIfExists(nvml);
        if (nvmlLibrary.isPresent()) {
            Files.copy(nvmlLibrary.get(), nvml);
        } else {
            Files.writeString(nvml, stub("libnvidia-ml.so." + version));
        }
        link(dir.resolve("libnvidia-ml.so.1"), nvml.getFileName().toString());
        for (Library library : LIBRARIES) {
            Path file = dir.resolve(library.stem() + ".so." + version);
            Files.createDirectories(file.getParent());
            Files.writeString(file, stub(file.getFileName().toString()));
            if (library.soname().isPresent()) {
                Path soname = dir.resolve(library.soname().get());
                link(soname, file.getFileName().toString());
                if (library.developmentLink().isPresent()) {
                    link(dir.resolve(library.developmentLink().get()), soname.getFileName().toString());
                }
            }
        }
    }

    private static void writeFirmware(Path root, String version) throws IOException {
        Path dir = Files.createDirectories(root.resolve("lib/firmware/nvidia").resolve(version));
        for (String name : FIRMWARE) {
            Files.writeString(dir.resolve(name), stub(name));
        }
    }

    private static void writeBinaries(Path root, String version) throws IOException {
        Path dir = Files.createDirectories(root.resolve("usr/bin"));
        for (String name : BINARIES) {
            Path file = dir.resolve(name);
            Files.writeString(file, "#!/bin/sh\necho '" + name + " " + version
                    + ": a simulated driver root (kgpu), there is no GPU to talk to' >&2\nexit 1\n");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    private static void writeDeviceNodes(Path root, List<Gpu> gpus) throws IOException {
        Path dev = Files.createDirectories(root.resolve("dev"));
        for (String name : CONTROL_DEVICE_NODES) {
            Files.writeString(dev.resolve(name), "");
        }
        for (Gpu gpu : gpus) {
            Files.writeString(dev.resolve("nvidia" + gpu.minor()), "");
        }
        if (gpus.stream().anyMatch(g -> !g.migDevices().isEmpty())) {
            Path caps = Files.createDirectories(dev.resolve("nvidia-caps"));
            Files.writeString(caps.resolve("nvidia-cap" + MIG_CONFIG_MINOR), "");
            Files.writeString(caps.resolve("nvidia-cap" + MIG_MONITOR_MINOR), "");
            for (Gpu gpu : gpus) {
                for (MigInstance mig : gpu.migDevices()) {
                    Files.writeString(caps.resolve("nvidia-cap" + gpuInstanceCapMinor(gpu.minor(), mig.gpuInstanceId())), "");
                    Files.writeString(caps.resolve("nvidia-cap" + computeInstanceCapMinor(gpu.minor(),
                            mig.gpuInstanceId(), mig.computeInstanceId())), "");
                }
            }
        }
    }

    private static void writeProc(Path root, String version, List<Gpu> gpus) throws IOException {
        Path nvidia = Files.createDirectories(root.resolve("proc/driver/nvidia"));
        Files.writeString(nvidia.resolve("version"), "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " + version
                + "  (simulated by kgpu)\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
        Path capabilities = nvidia.resolve("capabilities");
        writeAccess(capabilities.resolve("mig/config"), MIG_CONFIG_MINOR, 0400);
        writeAccess(capabilities.resolve("mig/monitor"), MIG_MONITOR_MINOR, 0444);
        for (Gpu gpu : gpus) {
            Path mig = capabilities.resolve("gpu" + gpu.minor()).resolve("mig");
            for (MigInstance instance : gpu.migDevices()) {
                Path gi = mig.resolve("gi" + instance.gpuInstanceId());
                writeAccess(gi.resolve("access"), gpuInstanceCapMinor(gpu.minor(), instance.gpuInstanceId()), 0444);
                writeAccess(gi.resolve("ci" + instance.computeInstanceId()).resolve("access"),
                        computeInstanceCapMinor(gpu.minor(), instance.gpuInstanceId(), instance.computeInstanceId()), 0444);
            }
        }
        StringBuilder minors = new StringBuilder();
        minors.append("config ").append(MIG_CONFIG_MINOR).append('\n');
        minors.append("monitor ").append(MIG_MONITOR_MINOR).append('\n');
        for (Gpu gpu : gpus) {
            for (int gi = 0; gi < GPU_INSTANCES_PER_GPU; gi++) {
                minors.append("gpu").append(gpu.minor()).append("/gi").append(gi).append("/access ")
                        .append(gpuInstanceCapMinor(gpu.minor(), gi)).append('\n');
                for (int ci = 0; ci < COMPUTE_INSTANCES_PER_GPU_INSTANCE; ci++) {
                    minors.append("gpu").append(gpu.minor()).append("/gi").append(gi).append("/ci").append(ci)
                            .append("/access ").append(computeInstanceCapMinor(gpu.minor(), gi, ci)).append('\n');
                }
            }
        }
        Path caps = Files.createDirectories(root.resolve("proc/driver/nvidia-caps"));
        Files.writeString(caps.resolve("mig-minors"), minors);
    }

    /** A capability file as the driver shows it: the device node's minor, its mode, and whether it is managed. */
    private static void writeAccess(Path file, int minor, int mode) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "DeviceFileMinor: " + minor + "\nDeviceFileMode: " + mode + "\nDeviceFileModify: 1\n");
    }

    private static void writeSysfs(Path root, List<Gpu> gpus) throws IOException {
        Path devices = Files.createDirectories(root.resolve("sys/bus/pci/devices"));
        Files.createDirectories(root.resolve("sys/bus/pci/drivers/nvidia"));
        for (Gpu gpu : gpus) {
            Path function = Files.createDirectories(devices.resolve(gpu.sysfsBusId()));
            int vendor = gpu.pciDeviceId() & 0xFFFF;
            int device = (gpu.pciDeviceId() >>> 16) & 0xFFFF;
            int subsystemVendor = gpu.pciSubsystemId() & 0xFFFF;
            int subsystemDevice = (gpu.pciSubsystemId() >>> 16) & 0xFFFF;
            int pciClass = gpu.vga() ? PCI_CLASS_VGA : PCI_CLASS_3D;
            Files.writeString(function.resolve("vendor"), hex4(vendor));
            Files.writeString(function.resolve("device"), hex4(device));
            Files.writeString(function.resolve("subsystem_vendor"), hex4(subsystemVendor));
            Files.writeString(function.resolve("subsystem_device"), hex4(subsystemDevice));
            Files.writeString(function.resolve("class"), String.format(Locale.ROOT, "0x%06x%n", pciClass));
            Files.writeString(function.resolve("numa_node"), gpu.numaNode().orElse(-1) + "\n");
            Files.write(function.resolve("config"), configSpace(vendor, device, pciClass, subsystemVendor, subsystemDevice));
            Files.writeString(function.resolve("resource"), resources(gpu.minor()));
            link(function.resolve("driver"), "../../drivers/nvidia");
        }
    }

    private static String hex4(int value) {
        return String.format(Locale.ROOT, "0x%04x%n", value);
    }

    /** The first 256 bytes of PCI configuration space: ids, class code and subsystem ids; the rest zero. */
    private static byte[] configSpace(int vendor, int device, int pciClass, int subsystemVendor, int subsystemDevice) {
        ByteBuffer config = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
        config.putShort(0x00, (short) vendor);
        config.putShort(0x02, (short) device);
        config.putInt(0x08, pciClass << 8 | 0xa1);  // class code in the top three bytes, revision a1
        config.putShort(0x2c, (short) subsystemVendor);
        config.putShort(0x2e, (short) subsystemDevice);
        return config.array();
    }

    /** BAR0 (16 MiB registers), BAR1 (framebuffer aperture), BAR3; the remaining lines of a 13-line resource file. */
    private static String resources(int minor) {
        long base = 0x80000000L + (long) minor * 0x1000000L * 4;
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "0x%016x 0x%016x 0x%016x%n", base, base + 0xffffff, 0x40200L));
        long bar1 = 0x380000000000L + (long) minor * 0x2000000000L;
        out.append(String.format(Locale.ROOT, "0x%016x 0x%016x 0x%016x%n", bar1, bar1 + 0x1fffffffffL, 0x14220cL));
        out.append(String.format(Locale.ROOT, "0x%016x 0x%016x 0x%016x%n", 0L, 0L, 0L));
        long bar3 = 0x3a0000000000L + (long) minor * 0x2000000L;
        out.append(String.format(Locale.ROOT, "0x%016x 0x%016x 0x%016x%n", bar3, bar3 + 0x1ffffff, 0x14220cL));
        for (int i = 4; i < 13; i++) {
            out.append(String.format(Locale.ROOT, "0x%016x 0x%016x 0x%016x%n", 0L, 0L, 0L));
        }
        return out.toString();
    }

    private static String stub(String name) {
        return "kgpu simulated driver root: a stand-in for " + name + "\n";
    }

    private static void link(Path link, String target) throws IOException {
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, Path.of(target));
    }
}
