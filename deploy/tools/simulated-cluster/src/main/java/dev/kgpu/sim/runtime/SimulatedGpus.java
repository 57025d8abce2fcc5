package dev.kgpu.sim.runtime;

import dev.kgpu.nvml.Brand;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.MigMode;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.SimulatedDriverRoot;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The simulated node's GPUs as the node itself sees them: read once, at start, through nvml-ffm's public API
 * from the mock NVML with the node's profile. They size the fake device nodes and sysfs, and tell the
 * simulated container runtime which device ids exist and which of them CUDA can run on.
 *
 * <p>Immutable; safe for concurrent use.
 */
public final class SimulatedGpus {

    private static final Set<Brand> GRAPHICS_BRANDS = Set.of(Brand.GEFORCE, Brand.GEFORCE_RTX, Brand.TITAN,
            Brand.TITAN_RTX);

    private final String driverVersion;
    private final List<Gpu> gpus;
    private final List<SimulatedDriverRoot.Gpu> driverRootGpus;
    private final Optional<Path> nvmlLibrary;

    private SimulatedGpus(String driverVersion, List<Gpu> gpus, List<SimulatedDriverRoot.Gpu> driverRootGpus,
                          Optional<Path> nvmlLibrary) {
        this.driverVersion = driverVersion;
        this.gpus = List.copyOf(gpus);
        this.driverRootGpus = List.copyOf(driverRootGpus);
        this.nvmlLibrary = nvmlLibrary;
    }

    /**
     * Loads the mock library in this process, selects {@code profile} (a name or a file, as
     * {@code MOCK_NVML_PROFILE} takes it) and reads every GPU and MIG device.
     */
    public static SimulatedGpus read(Path mockLibrary, String profile) {
        MockNvml.load(mockLibrary).useProfile(profile);
        try (Nvml nvml = Nvml.open(NvmlOptions.ofLibrary(mockLibrary))) {
            List<Gpu> gpus = new ArrayList<>();
            for (GpuDevice device : nvml.devices()) {
                boolean migEnabled = device.migMode().map(MigMode::currentEnabled).orElse(false);
                List<Mig> migs = new ArrayList<>();
                for (MigDevice mig : device.migDevices()) {
                    migs.add(new Mig(mig.index(), mig.uuid(), mig.profile().name()));
                }
                gpus.add(new Gpu(device.index(), device.uuid(), device.name(), device.minorNumber(),
                        device.pci().sysfsBusId(), GRAPHICS_BRANDS.contains(device.brand()), migEnabled, migs));
            }
            return new SimulatedGpus(nvml.driverVersion(), gpus, SimulatedDriverRoot.gpusOf(nvml), Optional.of(mockLibrary));
        }
    }

    /**
     * For tests: a node made of these GPUs. Its driver root has a stub NVML, NVIDIA's vendor id and no NUMA node
     * or MIG capabilities.
     */
    public static SimulatedGpus of(String driverVersion, List<Gpu> gpus) {
        List<SimulatedDriverRoot.Gpu> driverRoot = gpus.stream()
                .map(g -> new SimulatedDriverRoot.Gpu(g.minorNumber(), g.sysfsBusId(), 0x10de, 0x10de,
                        OptionalInt.empty(), g.graphics(), List.of()))
                .toList();
        return new SimulatedGpus(driverVersion, gpus, driverRoot, Optional.empty());
    }

    /** The GPUs as the node's driver root shows them (device nodes, MIG capabilities, sysfs). */
    public List<SimulatedDriverRoot.Gpu> driverRootGpus() {
        return driverRootGpus;
    }

    /** The mock NVML the node runs on, installed into its driver root; empty for a node made by {@link #of}. */
    public Optional<Path> nvmlLibrary() {
        return nvmlLibrary;
    }

    public String driverVersion() {
        return driverVersion;
    }

    public List<Gpu> gpus() {
        return gpus;
    }

    /** The GPU models, e.g. {@code 8 x NVIDIA A100-SXM4-80GB}. */
    public String describe() {
        if (gpus.isEmpty()) {
            return "no GPUs";
        }
        StringBuilder text = new StringBuilder();
        gpus.stream().map(Gpu::name).distinct().forEach(name -> {
            long count = gpus.stream().filter(g -> g.name().equals(name)).count();
            if (!text.isEmpty()) {
                text.append(", ");
            }
            text.append(count).append(" x ").append(name);
        });
        long migs = gpus.stream().mapToLong(g -> g.migDevices().size()).sum();
        if (migs > 0) {
            text.append(" (MIG on, ").append(migs).append(" MIG devices)");
        }
        return text.toString();
    }

    /**
     * The device a container runtime would find under {@code id}, as the device plugin writes ids: a GPU
     * UUID, a {@code MIG-} UUID, a GPU index ({@code 0}) or a MIG index ({@code 0:1}).
     */
    public Optional<Visible> find(String id) {
        String trimmed = id.strip();
        for (Gpu gpu : gpus) {
            if (gpu.uuid().equals(trimmed) || Integer.toString(gpu.index()).equals(trimmed)) {
                return Optional.of(new Visible.WholeGpu(gpu));
            }
            for (Mig mig : gpu.migDevices()) {
                if (mig.uuid().equals(trimmed) || (gpu.index() + ":" + mig.index()).equals(trimmed)) {
                    return Optional.of(new Visible.MigInstance(gpu, mig));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * One GPU.
     *
     * @param graphics   a GeForce/TITAN board: a VGA controller in sysfs (gpu.mode=graphics), else a 3D controller
     * @param migEnabled MIG mode is on now: CUDA runs only on its MIG devices
     */
    public record Gpu(int index, String uuid, String name, int minorNumber, String sysfsBusId, boolean graphics,
                      boolean migEnabled, List<Mig> migDevices) {
        public Gpu {
            migDevices = List.copyOf(migDevices);
        }
    }

    /** One MIG device of a GPU. */
    public record Mig(int index, String uuid, String profile) {
    }

    /** A device given to a container. */
    public sealed interface Visible {

        /** Whether CUDA can run on it: a GPU with MIG off, or a MIG device. */
        boolean cudaCapable();

        /** The line {@code nvidia-smi -L} prints for it. */
        String smiLine();

        /** The UUID of what it is: the GPU's, or the MIG device's. */
        String uuid();

        record WholeGpu(Gpu gpu) implements Visible {
            @Override
            public boolean cudaCapable() {
                return !gpu.migEnabled();
            }

            @Override
            public String uuid() {
                return gpu.uuid();
            }

            @Override
            public String smiLine() {
                return "GPU " + gpu.index() + ": " + gpu.name() + " (UUID: " + gpu.uuid() + ")"
                        + (gpu.migEnabled() ? " [MIG mode on: CUDA sees only its MIG devices]" : "");
            }
        }

        record MigInstance(Gpu gpu, Mig mig) implements Visible {
            @Override
            public boolean cudaCapable() {
                return true;
            }

            @Override
            public String uuid() {
                return mig.uuid();
            }

            @Override
            public String smiLine() {
                return "  MIG " + mig.profile() + " Device " + mig.index() + " of GPU " + gpu.index() + ": (UUID: "
                        + mig.uuid() + ")";
            }
        }
    }
}
